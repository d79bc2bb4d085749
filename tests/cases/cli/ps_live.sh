#!/usr/bin/env bash
# Issue #16, part 1: cutap ps on running processes, read-only. A call that
# hangs (the fake driver's FAKE_BLOCK: until a file appears) is shown in
# progress with how long it has been running; --stuck exits 1 once it has
# run longer than asked, 0 below; --pid finds the trace of a running
# process; JSON is valid and says the same; calls in progress are shown
# outermost first (ncclAllReduce > cuLaunchKernelEx) and the collective in
# progress is named per communicator; --watch repeats the view; released, the thread has no call in
# progress and its last completed call is named; killed (SIGKILL), the
# view still says where the thread was. Two ranks, one of which issued one
# all-reduce fewer before hanging: the communicator line marks it behind.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
rel=$WORK/release
wait_ready() { for _ in $(seq 200); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.05; done; say "  $1: never ready"; return 1; }

# 1. one blocked call
FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace -o "$WORK/a" -- $T/t_ranks 1 >"$WORK/a.out" 2>&1 &
wait_ready "$WORK/a.out" || exit 1
for _ in $(seq 200); do "$CUTAP" ps "$WORK/a" 2>/dev/null | grep -q 'cuCtxSynchronize() <running' && break; sleep 0.05; done
sleep 0.5   # now it has been running longer than --stuck 0.2 below
"$CUTAP" ps "$WORK/a" >"$WORK/a.ps" || { cat "$WORK/a.ps" >&2; exit 1; }
grep -q ': running$' "$WORK/a.ps" && grep -Eq 'cuCtxSynchronize\(\) <running [0-9.]+ (ms|s)>' "$WORK/a.ps" \
    && grep -q 'last completed: ncclAllReduce' "$WORK/a.ps" || { say "  blocked call not shown"; cat "$WORK/a.ps" >&2; exit 1; }
"$CUTAP" ps --stuck 0.2 "$WORK/a" >/dev/null 2>&1; [ $? = 1 ] || { say "  --stuck 0.2 did not exit 1"; exit 1; }
"$CUTAP" ps --stuck 600 "$WORK/a" >/dev/null 2>&1 || { say "  --stuck 600 exited non-zero"; exit 1; }
pid=$(sed -n 's/^process \([0-9]*\) .*/\1/p' "$WORK/a.ps")
"$CUTAP" ps --pid "$pid" --format json >"$WORK/a.json" || exit 1
python3 - "$WORK/a.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
t = d["processes"][0]["threads"][0]
assert d["processes"][0]["state"] == "running", d
assert [c["name"] for c in t["in_progress"]] == ["cuCtxSynchronize"], t
assert t["in_progress"][0]["running_s"] > 0.2 and t["last"]["name"] == "ncclAllReduce", t
PY
# --watch: the view again and again until interrupted (no screen clearing
# into a file)
timeout -s INT 1.5 "$CUTAP" ps --watch --interval 0.2 "$WORK/a" >"$WORK/a.watch" 2>&1
[ "$(grep -c 'cuCtxSynchronize() <running' "$WORK/a.watch")" -ge 3 ] && ! grep -q $'\033' "$WORK/a.watch" \
    || { say "  --watch"; cat -v "$WORK/a.watch" | head >&2; exit 1; }
touch "$rel"; wait
"$CUTAP" ps "$WORK/a" >"$WORK/a2.ps" || exit 1
grep -q 'no call in progress' "$WORK/a2.ps" && grep -q 'last completed: cuCtxSynchronize' "$WORK/a2.ps" \
    && grep -q ': exited$' "$WORK/a2.ps" || { cat "$WORK/a2.ps" >&2; exit 1; }
rm -f "$rel"

# 2. nested, then killed
FAKE_BLOCK=cuLaunchKernelEx:$rel "$CUTAP" trace -o "$WORK/b" -- $T/t_ranks 1 >"$WORK/b.out" 2>&1 &
for _ in $(seq 200); do ls "$WORK"/b/*.cutap >/dev/null 2>&1 && "$CUTAP" ps "$WORK/b" 2>/dev/null | grep -q cuLaunchKernelEx && break; sleep 0.05; done
"$CUTAP" ps "$WORK/b" >"$WORK/b.ps" || exit 1
grep -Eq 'ncclAllReduce\(.*\) <running [^>]*> > cuLaunchKernelEx\(.*\) <running ' "$WORK/b.ps" \
    && grep -q '#1 ncclAllReduce in progress' "$WORK/b.ps" || { say "  nested"; cat "$WORK/b.ps" >&2; exit 1; }
kill -9 "$(sed -n 's/^process \([0-9]*\) .*/\1/p' "$WORK/b.ps")"; wait
"$CUTAP" ps "$WORK/b" >"$WORK/b2.ps" 2>/dev/null
grep -q 'gone' "$WORK/b2.ps" && grep -q 'ncclAllReduce(.*) <unfinished> > cuLaunchKernelEx(.*) <unfinished>' "$WORK/b2.ps" \
    || { say "  after SIGKILL"; cat "$WORK/b2.ps" >&2; exit 1; }
touch "$rel"

# 3. two ranks, one behind
rm -f "$rel"
mkdir -p "$WORK/job"
RANK=0 FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace -o "$WORK/r0" -- $T/t_ranks 3 >"$WORK/r0.out" 2>&1 &
RANK=1 FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace -o "$WORK/r1" -- $T/t_ranks 2 >"$WORK/r1.out" 2>&1 &
wait_ready "$WORK/r0.out" && wait_ready "$WORK/r1.out" || exit 1
ln "$WORK"/r0/*.cutap "$WORK"/r1/*.cutap "$WORK/job/"   # the ranks' files in one directory, live
"$CUTAP" ps "$WORK/job" >"$WORK/job.ps" || exit 1
touch "$rel"; wait
grep -q 'communicator #0 .*ranks differ' "$WORK/job.ps" && grep -q 'rank 0 (.*): 3 issued$' "$WORK/job.ps" \
    && grep -q 'rank 1 (.*): 2 issued   <-- behind' "$WORK/job.ps" || { say "  ranks"; cat "$WORK/job.ps" >&2; exit 1; }
