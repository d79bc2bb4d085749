#!/usr/bin/env bash
# The public API from a signal handler while its own thread changes which
# clients are on (never harm: no hang): t_sig_refresh turns a client on and
# off for every id 200 times (a refresh of every id each time) with a
# timer at that thread every 20 us, whose handler turns the client on for
# cuDeviceGetCount and calls it, under trace. A refresh from the handler
# waited for the refresh lock its own thread held (status 124 before the
# fix: 3 runs of 3); it is now left to the holder, who makes it before it
# lets go. Afterwards, the client on for every id, it sees each of the
# last 1,000 calls of both functions (no refresh left undone), and the
# trace holds every cuDeviceGetCount made (the handler's and main's).
# Then t_sig_adopt: the handler calls a function of a library layer while
# its thread's first call of it adopts the layer and refreshes its ids (8
# layers in turn): the handler's call found the layer adopted and its id
# not yet refreshed, and looped for ever waiting for the refresh its own
# thread was making (status 124, 6 runs of 6); it now goes the general
# way, and the trace holds every call of the 8 functions. (A handler's call
# that comes while its thread is still adopting the layer gets the layer's
# "unavailable" status: a known limit, docs/LIMITS.md; helper-27's review
# counted 74 of 141. The case prints how many; it does not pass them off
# as made.) Last, t_sig_refresh dyn: the handler turns the client on for
# a dynamic id (an export table's slot, FAKE_SIZED#1) while its thread
# refreshes, 20 rounds; the client must then see each of the slot's 100
# calls a round. A deferred refresh of a dynamic id was dropped (800 to
# 1,000 of 2,000 seen in 4 runs of 4 before helper-27's mend).
. "$(dirname "$0")/../../lib/init.sh"

# (the fakes first on the path: the handler also calls the fake
# libnvrtc's nvrtcVersion, each time)
libs_env "$CUTAP" trace -o "$WORK/t" -- $T/t_sig_refresh 200 1000 >"$WORK/out" 2>"$WORK/err" \
    || { say "  status $?"; cat "$WORK/out" "$WORK/err" >&2; exit 1; }
h=$(sed -n 's/^toggles 200 handler \([0-9]*\) seen 1000 1000 nvrtc \1$/\1/p' "$WORK/out")
[ -n "$h" ] || { say "  want the client to see each of the last calls, and every nvrtcVersion to succeed:"; cat "$WORK/out" >&2; exit 1; }
[ "$h" -ge 20 ] || { say "  the handler ran $h times (want 20 or more)"; exit 1; }
"$CUTAP" report --format csv "$WORK/t" >"$WORK/csv" 2>"$WORK/rep.err" || { say "  report failed"; exit 1; }
got=$(awk -F, '$2 == "cuDeviceGetCount" { print $3 }' "$WORK/csv")
lost=$(sed -n 's/.*: \([0-9,]*\) calls\{0,1\} not recorded.*/\1/p' "$WORK/rep.err" | tr -d , | head -1)
[ $((${got:-0} + ${lost:-0})) = $((h + 1000)) ] \
    || { say "  cuDeviceGetCount recorded ${got:-0}, lost ${lost:-0}, made $((h + 1000))"; exit 1; }

timeout 60 "$CUTAP" trace -o "$WORK/a" -- $T/t_sig_adopt adopt >"$WORK/a.out" 2>"$WORK/a.err" \
    || { say "  adopt: status $?"; cat "$WORK/a.out" "$WORK/a.err" >&2; exit 1; }
c=$(sed -n 's/^adopted 8 handler [0-9]* calls \([0-9]*\) failed [0-9]*$/\1/p' "$WORK/a.out")
[ "${c:-0}" -ge 8 ] || { say "  adopt: want 8 layers adopted and 8 handler calls or more:"; cat "$WORK/a.out" >&2; exit 1; }
"$CUTAP" report --format csv "$WORK/a" >"$WORK/a.csv" 2>"$WORK/a.rep" || { say "  adopt: report failed"; exit 1; }
got=$(awk -F, '$2 ~ /^(cudaRuntimeGetVersion|cufftGetVersion|curandGetVersion|ncclGetVersion|cusolverGetVersion|cudnnGetVersion|nvrtcVersion|cublasLtGetVersion)$/ { n += $3 } END { print n + 0 }' "$WORK/a.csv")
lost=$(sed -n 's/.*: \([0-9,]*\) calls\{0,1\} not recorded.*/\1/p' "$WORK/a.rep" | tr -d , | head -1)
[ $((got + ${lost:-0})) = $((c + 8)) ] || { say "  adopt: the 8 functions recorded $got, lost ${lost:-0}, made $((c + 8))"; exit 1; }
say "  adopt: $(sed -n 's/^adopted 8 handler [0-9]* calls \([0-9]*\) failed \([0-9]*\)$/\2 of the handler'"'"'s \1 calls unavailable (while adopting)/p' "$WORK/a.out")"

LD_PRELOAD=$LIB timeout 60 $T/t_sig_refresh dyn >"$WORK/d.out" 2>"$WORK/d.err" \
    || { say "  dyn: status $?"; cat "$WORK/d.out" "$WORK/d.err" >&2; exit 1; }
grep -qx 'dyn rounds 20 seen 2000 of 2000' "$WORK/d.out" \
    || { say "  dyn: the client missed calls of the dynamic id turned on from the handler:"; cat "$WORK/d.out" >&2; exit 1; }
exit 0
