#!/usr/bin/env bash
# Issue #30: cutap trace --print[=FILE] writes each call, decoded as dump
# writes it, as it completes (stderr by default), from a thread of the
# cutap command that follows the trace files: per thread the same calls in
# the same order as dump's (times from the command's start), threads,
# nesting, kernel names (written after the call ends) and the calls of NVTX
# ranges included, several processes at once, a thread going on in others'
# chunk tails; calls made after the process reached exit; -e selects;
# lines appear while the program runs; a call whose process was killed
# inside it is shown unfinished; one holding many later calls back is
# shown started and then resumed; the program's output, status and
# descriptors are unchanged; a failing output (/dev/full) ends the
# printing, not the command, and the trace is whole (and a reader of
# cutap's stderr that goes away costs neither status nor trace); bad uses
# are errors.
# (Durations may differ from dump's by 2 ns or 0.1 %: tests/lib/same_lines.py.)
. "$(dirname "$0")/../../lib/init.sh"

same_as_dump() {   # same_as_dump PRINTED DIR
    "$CUTAP" dump "$2" >"$WORK/dump.txt" 2>/dev/null || { say "  dump $2 failed"; exit 1; }
    [ -s "$1" ] || { say "  nothing printed"; exit 1; }
    python3 "$TL/same_lines.py" "$1" "$WORK/dump.txt" >&2 || { say "  --print differs from dump ($2)"; exit 1; }
}
"$CUTAP" trace --print="$WORK/p1.txt" -o "$WORK/t1" -- "$T/t_static_rt" >/dev/null 2>&1 || { say "  t_static_rt: status $?"; exit 1; }
same_as_dump "$WORK/p1.txt" "$WORK/t1"
"$CUTAP" trace --print="$WORK/p2.txt" -o "$WORK/t2" -- "$T/t_record" threads 4 3000 >/dev/null 2>&1 || exit 1
same_as_dump "$WORK/p2.txt" "$WORK/t2"
[ "$(cut -d' ' -f2 "$WORK/p2.txt" | sort -u | wc -l)" -ge 4 ] || { say "  fewer than 4 threads printed"; exit 1; }
# a thread going on in the tails of exited threads' chunks, its second run
# lower in the file than its first (THREAD metas; the queue kept in run
# order: within one poll the lines are also sorted by time, so a misordered
# queue shows only when a call spans the switch, which this does not make)
"$CUTAP" trace --print="$WORK/pt.txt" -o "$WORK/tt" -- "$T/t_record" tails 20000 >/dev/null 2>&1 || exit 1
same_as_dump "$WORK/pt.txt" "$WORK/tt"
# kernel names (written after their call ends), NVTX ranges (dump draws them; --print shows their calls)
"$CUTAP" trace --print="$WORK/pk.txt" -o "$WORK/tk" -- "$T/t_record" kernels >/dev/null 2>&1 || exit 1
same_as_dump "$WORK/pk.txt" "$WORK/tk"
grep -q 'cuLaunchKernel(f=0x[0-9a-f]*<' "$WORK/pk.txt" || { say "  no kernel named"; grep cuLaunchKernel "$WORK/pk.txt" >&2; exit 1; }
"$CUTAP" trace --print="$WORK/pn.txt" -o "$WORK/tn" -- "$T/t_nvtx" >/dev/null 2>&1 || exit 1
same_as_dump "$WORK/pn.txt" "$WORK/tn"

# processes recording at once (their threads found in any order), nested calls
"$CUTAP" trace --print="$WORK/pm.txt" -o "$WORK/tm" -- bash -c \
    "$T/t_record threads 3 4000 >/dev/null & $T/t_static_rt >/dev/null & $T/t_record tails 20000 >/dev/null; wait" \
    >/dev/null 2>&1 || exit 1
same_as_dump "$WORK/pm.txt" "$WORK/tm"
[ "$(ls "$WORK/tm"/*.cutap | wc -l)" -ge 3 ] || { say "  fewer than 3 processes traced"; exit 1; }

# cutap's stderr read by a reader that goes away: the command's status, the trace whole
"$CUTAP" trace --print -o "$WORK/tp" -- "$T/t_record" many 20000 2>&1 >/dev/null | head -1 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { say "  --print to a closed pipe: status $rc"; exit 1; }
[ "$("$CUTAP" dump "$WORK/tp" 2>/dev/null | wc -l)" = 20000 ] || { say "  --print to a closed pipe: trace not whole"; exit 1; }

# calls made after the process reached exit (atexit handlers, destructors) are printed too
"$CUTAP" trace --print="$WORK/p11.txt" -o "$WORK/t11" -- "$T/t_record" atexit 40 >/dev/null 2>&1 || exit 1
same_as_dump "$WORK/p11.txt" "$WORK/t11"
[ "$(wc -l <"$WORK/p11.txt")" = 43 ] || { say "  atexit: $(wc -l <"$WORK/p11.txt") lines, not 43"; exit 1; }

# the program's stdout and status unchanged; --print alone: stderr
"$T/t_record" errors >"$WORK/bare.out" 2>/dev/null; bare=$?
"$CUTAP" trace --print -o "$WORK/t3" -- "$T/t_record" errors >"$WORK/tr.out" 2>"$WORK/tr.err"; rc=$?
[ $rc = $bare ] && cmp -s "$WORK/bare.out" "$WORK/tr.out" || { say "  output or status changed ($rc, bare $bare)"; exit 1; }
grep -q '^[0-9.]* \[[0-9]*/[0-9]*\] cuMemAlloc_v2(.*) = CUDA_ERROR' "$WORK/tr.err" || { say "  nothing on stderr"; cat "$WORK/tr.err" >&2; exit 1; }

# -e: only what is recorded is printed
"$CUTAP" trace -e cuDriverGetVersion --print="$WORK/p4.txt" -o "$WORK/t4" -- "$T/t_record" mix 50 >/dev/null 2>&1 || exit 1
[ "$(wc -l <"$WORK/p4.txt")" = 50 ] && [ "$(grep -c ' cuDriverGetVersion(' "$WORK/p4.txt")" = 50 ] \
    || { say "  -e cuDriverGetVersion: $(wc -l <"$WORK/p4.txt") lines"; exit 1; }

# live: the calls appear while the program still runs (it waits forever after them)
"$CUTAP" trace --print="$WORK/p5.txt" -o "$WORK/t5" -- "$T/t_record" wait 5 >/dev/null 2>&1 &
cutap_pid=$!
on_exit "kill -9 $cutap_pid 2>/dev/null"
for _ in $(seq 100); do [ "$(wc -l 2>/dev/null <"$WORK/p5.txt" || echo 0)" = 5 ] && break; sleep 0.1; done
[ "$(wc -l <"$WORK/p5.txt")" = 5 ] || { say "  not printed while the program ran: $(wc -l <"$WORK/p5.txt") lines"; exit 1; }
pid=$(sed -n 's/^[0-9.]* \[\([0-9]*\)\/.*/\1/p' "$WORK/p5.txt" | head -1)
kill -0 "$pid" 2>/dev/null || { say "  the program is not running"; exit 1; }
kill -TERM "$pid"; wait $cutap_pid; rc=$?
[ $rc = 143 ] || { say "  status $rc after SIGTERM, not 143"; exit 1; }

# killed inside a call (an injected delay): that call is shown unfinished at the end
"$CUTAP" trace --inject 'cuDriverGetVersion:delay=60s' --print="$WORK/p6.txt" -o "$WORK/t6" -- "$T/t_record" mix 3 >/dev/null 2>&1 &
cutap_pid=$!
on_exit "kill -9 $cutap_pid 2>/dev/null"
for _ in $(seq 100); do grep -q 2>/dev/null cuCtxGetCurrent "$WORK/p6.txt" && break; sleep 0.1; done
pid=$(sed -n 's/^[0-9.]* \[\([0-9]*\)\/.*/\1/p' "$WORK/p6.txt" | head -1)
[ -n "$pid" ] || { say "  nothing printed before the delayed call"; exit 1; }
kill -KILL "$pid"; wait $cutap_pid
tail -1 "$WORK/p6.txt" | grep -q ' cuDriverGetVersion(.*) = ? <unfinished>' || { say "  the killed call:"; cat "$WORK/p6.txt" >&2; exit 1; }

# a call holding more than CUTAP_PRINT_HOLD later calls back: started, then resumed
# (the innermost of t_static_rt's 64 nested cudaDeviceSynchronize calls made 300 ms late)
CUTAP_PRINT_HOLD=2 "$CUTAP" trace --inject 'cuCtxSynchronize:delay=300ms' --print="$WORK/p7.txt" -o "$WORK/t7" \
    -- "$T/t_static_rt" >/dev/null 2>&1 || exit 1
st=$(grep -c '<unfinished \.\.\.>' "$WORK/p7.txt"); re=$(grep -c '<\.\.\. [A-Za-z_0-9]* resumed>(.*) = ' "$WORK/p7.txt")
[ "$st" -gt 10 ] && [ "$st" = "$re" ] || { say "  $st started, $re resumed"; exit 1; }
same_as_dump "$WORK/p7.txt" "$WORK/t7"
"$CUTAP" dump "$WORK/t7" >"$WORK/d7.txt" 2>/dev/null
[ $(( $(wc -l <"$WORK/p7.txt") - re )) = "$(wc -l <"$WORK/d7.txt")" ] || { say "  started/resumed: calls lost"; exit 1; }

# the program's descriptors: the same as bare (FILE is cutap's, close-on-exec)
bash -c 'ls /proc/$$/fd' >"$WORK/fd.bare" 2>/dev/null
"$CUTAP" trace --print="$WORK/p8.txt" -o "$WORK/t8" -- bash -c 'ls /proc/$$/fd' >"$WORK/fd.tr" 2>/dev/null
cmp -s "$WORK/fd.bare" "$WORK/fd.tr" || { say "  descriptors differ:"; paste "$WORK/fd.bare" "$WORK/fd.tr" >&2; exit 1; }

# an output that fails: the command runs on, the trace is whole
"$CUTAP" trace --print=/dev/full -o "$WORK/t9" -- "$T/t_record" many 200 >/dev/null 2>&1 || { say "  --print=/dev/full: status $?"; exit 1; }
[ "$("$CUTAP" dump "$WORK/t9" 2>/dev/null | wc -l)" = 200 ] || { say "  --print=/dev/full: trace not whole"; exit 1; }

# bad uses
for a in "--print --ring 4M" "--print=" ; do
    "$CUTAP" trace $a -o "$WORK/bad" -- true >/dev/null 2>&1; rc=$?
    [ $rc = 2 ] || { say "  trace $a: status $rc, not 2"; exit 1; }
done
"$CUTAP" trace --print="$WORK/no/such/dir/p" -o "$WORK/t10" -- touch "$WORK/ran" >/dev/null 2>&1; rc=$?
[ $rc = 1 ] && [ ! -e "$WORK/ran" ] || { say "  an unwritable --print FILE: status $rc, the command ran: $([ -e "$WORK/ran" ] && echo yes)"; exit 1; }
exit 0
