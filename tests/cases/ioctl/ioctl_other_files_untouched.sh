#!/usr/bin/env bash
# Issue #15: libcutap.so exports glibc's ioctl, open*, close, dup*, fcntl,
# mmap* and munmap, so every such call of a traced program passes through
# it. Those on anything but an NVIDIA device file must behave exactly as
# without cutap and leave nothing in the trace (t_ioctl other: FIONREAD on
# a pipe, TCGETS/TIOCGWINSZ on a pseudo-terminal, SIOCGIFCONF on a socket,
# an ioctl on a regular file, opens, closes and mappings of regular
# files): same output bare, under cutap trace and under cutap stat, and no
# call of layer ioctl recorded (no trace file at all: the program makes no
# CUDA call). A device file opened under another directory than the
# device directory is not one either.
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
other=$WORK/other
mkdir -p "$other" && touch "$other/nvidiactl"
"$T/t_ioctl" other "$other" >"$WORK/bare.out" 2>&1 || { say "  bare run failed"; cat "$WORK/bare.out" >&2; exit 1; }
grep -q '^ok$' "$WORK/bare.out" || exit 1
"$CUTAP" trace -o "$WORK/tr" -- "$T/t_ioctl" other "$other" >"$WORK/tr.out" 2>"$WORK/tr.err" || exit 1
diff "$WORK/bare.out" "$WORK/tr.out" >&2 || { say "  output changed under trace"; exit 1; }
"$CUTAP" stat -o "$WORK/stat.txt" -- "$T/t_ioctl" other "$other" >"$WORK/st.out" 2>&1 || exit 1
diff "$WORK/bare.out" "$WORK/st.out" >&2 || { say "  output changed under stat"; exit 1; }
n=$(ls "$WORK/tr"/*.cutap 2>/dev/null | wc -l)
[ "$n" = 0 ] || { say "  $n trace files: something was recorded"; "$CUTAP" dump "$WORK/tr" | head >&2; exit 1; }
! grep -q ioctl "$WORK/stat.txt" || { say "  stat counted ioctl-layer calls"; cat "$WORK/stat.txt" >&2; exit 1; }
