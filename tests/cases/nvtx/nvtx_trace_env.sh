#!/usr/bin/env bash
# cutap trace makes the preloaded libcutap.so the NVTX injection
# library (absolute path); --no-nvtx does not; a value the user set is
# left as it is, and nothing is said about it.
. "$(dirname "$0")/../../lib/init.sh"

want=$(realpath "$LIB")
got=$("$CUTAP" trace -o "$WORK/ne1" -- sh -c 'echo "$NVTX_INJECTION64_PATH"' 2>/dev/null) || exit 1
[ "$got" = "$want" ] || { say "  NVTX_INJECTION64_PATH='$got', want '$want'"; exit 1; }
got=$("$CUTAP" trace --no-nvtx -o "$WORK/ne2" -- sh -c 'echo "${NVTX_INJECTION64_PATH-unset}"' 2>/dev/null) || exit 1
[ "$got" = unset ] || { say "  --no-nvtx: NVTX_INJECTION64_PATH='$got'"; exit 1; }
got=$(NVTX_INJECTION64_PATH=/opt/tool.so "$CUTAP" trace -o "$WORK/ne3" -- sh -c 'echo "$NVTX_INJECTION64_PATH"' 2>"$WORK/ne3.err") || exit 1
# (the summary's trace directory, in $WORK, is no word about NVTX)
[ "$got" = /opt/tool.so ] && ! sed "s|$WORK/||g" "$WORK/ne3.err" | grep -qi nvtx || { say "  user's value: '$got'"; cat "$WORK/ne3.err" >&2; exit 1; }
"$CUTAP" stat --no-nvtx -- true 2>"$WORK/ne4.err"; [ $? = 2 ] && grep -q 'option of cutap trace' "$WORK/ne4.err" \
    && "$CUTAP" trace --help | grep -q -- '--no-nvtx'
