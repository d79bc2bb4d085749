#!/usr/bin/env bash
# libcutap.so is a small front; the core (libcutap_core.so) is loaded at
# the first call that needs it (issue #24, start-up cost). A traced process
# that makes no CUDA call never maps the core; one that calls CUDA does.
# Start-up reads no inherited descriptor: a traced /bin/true makes the same
# system calls with 1,000 inherited descriptors as with none. With the
# core missing, the program runs untraced with the results it has bare,
# and a warning says why (on stderr when not recording, in the trace
# registry when recording); cutap trace refuses to start without it.
. "$(dirname "$0")/../../lib/init.sh"

maps_of() {   # CMD...: runs CMD in the background until it says ready (or 10 s), prints its maps
    rm -f "$WORK/m.out"   # (before the start: an old "ready" must not be read)
    "$@" >"$WORK/m.out" 2>&1 &
    local p=$! i
    for ((i = 0; i < 1000; i++)); do grep -q ready "$WORK/m.out" 2>/dev/null && break; sleep 0.01; done
    cat "/proc/$p/maps" 2>/dev/null
    kill $p 2>/dev/null; wait $p 2>/dev/null
}
CUTAP_TRACE=$WORK/none LD_PRELOAD=$LIB maps_of sh -c 'echo ready; sleep 5' >"$WORK/none.maps"
grep -q 'libcutap\.so' "$WORK/none.maps" || { say "  the front is not mapped in a traced shell"; exit 1; }
grep -q libcutap_core "$WORK/none.maps" && { say "  a process that made no CUDA call mapped the core"; exit 1; }
CUTAP_TRACE=$WORK/some LD_PRELOAD=$LIB maps_of $T/t_record wait 3 >"$WORK/some.maps"
grep -q libcutap_core "$WORK/some.maps" || { say "  a process that called CUDA did not map the core"; exit 1; }

if command -v strace >/dev/null; then
    # system calls of a traced /bin/true, started with N more descriptors.
    # Not counted: rt_sigaction, the exec notes' probe of the environment's
    # pages (src/front/exec.c: strace's child execs /bin/true through the
    # front), one a page, and the environment crosses a page boundary or
    # not as the stack's random offset falls (63 or 64 calls in all).
    nsys() {
        bash -c 'for ((fd = 10; fd < 10 + $1; fd++)); do eval "exec $fd</dev/null"; done
                 CUTAP_TRACE=$2/st LD_PRELOAD=$3 exec strace -f -qq -c -o "$2/strace.out" /bin/true' _ "$1" "$WORK" "$LIB"
        awk 'NR > 2 && $1 !~ /^-/ && $NF != "total" && $NF != "rt_sigaction" { n += $4; k++ } END { if (k) print n }' "$WORK/strace.out"
    }
    few=$(nsys 0)
    many=$(nsys 1000)
    [ -n "$few" ] && [ "$few" = "$many" ] || { say "  start-up: $few system calls, $many with 1,000 inherited descriptors"; exit 1; }
    say "  start-up of a traced /bin/true: $few system calls (rt_sigaction aside), with or without 1,000 inherited descriptors"
else
    say "  no strace here: the start-up system calls are not counted"
fi

# the core missing: untraced, as bare, said
mkdir -p "$WORK/alone"
cp "$LIB" "$WORK/alone/libcutap.so"
$T/t_record many 3 >"$WORK/bare.out" 2>&1 || exit 1
LD_PRELOAD=$WORK/alone/libcutap.so $T/t_record many 3 >"$WORK/alone.out" 2>"$WORK/alone.err" || { say "  status $?"; exit 1; }
cmp -s "$WORK/bare.out" "$WORK/alone.out" || { say "  output differs without the core"; exit 1; }
grep -q "cannot load libcutap_core.so: $WORK/alone/libcutap_core.so: .*; the program runs untraced" "$WORK/alone.err" \
    || { say "  no warning:"; cat "$WORK/alone.err" >&2; exit 1; }
CUTAP_TRACE=$WORK/alone.tr LD_PRELOAD=$WORK/alone/libcutap.so $T/t_record many 3 >"$WORK/alone2.out" 2>"$WORK/alone2.err" \
    || { say "  recording: status $?"; exit 1; }
cmp -s "$WORK/bare.out" "$WORK/alone2.out" && [ ! -s "$WORK/alone2.err" ] || { say "  recording without the core: output differs or stderr written"; exit 1; }
reg_says "$WORK/alone.tr" "cannot load .*libcutap_core.so" || exit 1
CUTAP_LIBRARY=$WORK/alone/libcutap.so "$CUTAP" trace -o "$WORK/cli" -- true 2>"$WORK/cli.err" && { say "  cutap trace ran without the core"; exit 1; }
grep -q 'libcutap_core.so: No such file or directory' "$WORK/cli.err" || { cat "$WORK/cli.err" >&2; exit 1; }
exit 0
