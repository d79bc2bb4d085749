#!/usr/bin/env bash
# Issue #16, part 2: freezing and capture control. In every run the calls
# recorded, counted and overwritten add up exactly to the calls a plain
# trace records.
#  - SIGUSR2 to cutap trace (and cutap freeze DIR) while a ring process
#    waits between two phases: it freezes at its next chunk; what it had
#    recorded is not overwritten any more (overwritten < the first phase's
#    calls), the 60,000 later calls are counted; a process started in the
#    directory afterwards starts frozen.
#  - --until-error: a process freezes at its first failing selected call
#    (the note names it); the other process of the command is then frozen
#    by cutap trace (reason peer).
#  - --delay, --duration, --capture-range cudaProfilerApi and nvtx:NAME:
#    only the calls inside are recorded, the rest counted.
#  - bad values are refused before anything runs.
. "$(dirname "$0")/../../lib/init.sh"

export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
export FAKE_NCCL_LAUNCHES=5
go=$WORK/go; go2=$WORK/go2
export T_RING_GO=$go
total() { "$CUTAP" report --format csv "$1" 2>/dev/null | awk -F, 'NR > 1 { s += $3 } END { print s + 0 }'; }
recs() { "$CUTAP" dump "$1" 2>/dev/null | grep -c "$2"; }
field() { python3 "$TL/hdr_field.py" "$1" "$2"; }
wait_line() { for _ in $(seq 400); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; say "  no '$2' in $1"; cat "$1" >&2; return 1; }
# the plain trace's totals (no ring, nothing frozen)
touch "$go"
"$CUTAP" trace -o "$WORK/plain" -- $T/t_ring 4 2000 phase >/dev/null 2>&1 || exit 1
plain=$(total "$WORK/plain")
[ "$plain" = 108009 ] || { say "  plain trace: $plain calls"; exit 1; }
rm -f "$go"

# 1. SIGUSR2, then cutap freeze
for how in signal command; do
    d=$WORK/f-$how
    "$CUTAP" trace --ring 1M -o "$d" -- $T/t_ring 4 2000 phase >"$d.out" 2>"$d.err" &
    cpid=$!
    wait_line "$d.out" 'phase1 done' || exit 1
    if [ $how = signal ]; then kill -USR2 $cpid; wait_line "$d.err" 'SIGUSR2: 1 process asked to freeze' || exit 1
    else "$CUTAP" freeze "$d" >"$d.fz" || exit 1; grep -q '1 process asked to freeze' "$d.fz" || { cat "$d.fz" >&2; exit 1; }; fi
    touch "$go"; wait $cpid || { cat "$d.err" >&2; exit 1; }; rm -f "$go"
    f=$(ls "$d"/*.cutap)
    [ "$(field "$f" freeze_reason)" = 1 ] || { say "  $how: not frozen on request"; exit 1; }
    over=$(field "$f" overwritten_calls); kept=$(total "$d")
    [ $((kept + over)) = "$plain" ] || { say "  $how: $kept recorded or counted + $over overwritten != $plain"; exit 1; }
    [ "$over" -lt 48005 ] || { say "  $how: $over overwritten: the ring was overwritten after the freeze"; exit 1; }
    late=$(( $(recs "$d" 'comm=0xd') + $(recs "$d" 'comm=0xe') ))
    [ "$late" -le 1024 ] || { say "  $how: $late calls recorded after the freeze"; exit 1; }
    "$CUTAP" report "$d" 2>&1 >/dev/null | grep -q 'frozen [0-9.]* s after its start on request' || { say "  $how: no note"; exit 1; }
done
# a process started in a frozen directory starts frozen
CUTAP_TRACE=$WORK/f-command LD_PRELOAD=$LIB $T/t_ring 2 100 >/dev/null 2>&1 || exit 1
n=0; for f in "$WORK"/f-command/*.cutap; do [ "$(field "$f" freeze_reason)" = 1 ] && n=$((n + 1)); done
[ $n = 2 ] || { say "  the later process did not start frozen"; exit 1; }

# 2. --until-error, and the other process frozen by cutap trace
touch "$go"; rm -f "$go2"
d=$WORK/ue
"$CUTAP" trace --ring 1M --until-error 'cuDeviceGetCount' -o "$d" -- \
    sh -c "T_RING_GO2= $T/t_ring 2 200 phase,fail; T_RING_GO2=$go2 $T/t_ring 2 2000 phase & wait" >"$d.out" 2>"$d.err" &
cpid=$!
wait_line "$d.err" 'froze on its first failing call' || exit 1
touch "$go2"; wait $cpid || { say "  the command failed"; cat "$d.err" >&2; exit 1; }
reasons=$(for f in "$d"/*.cutap; do field "$f" freeze_reason; done | sort | tr '\n' ' ')
[ "$reasons" = "2 3 " ] || { say "  freeze reasons: $reasons"; exit 1; }
"$CUTAP" report "$d" 2>&1 >/dev/null | grep -q 'by its first failing cuDeviceGetCount (result 1)' \
    && "$CUTAP" report "$d" 2>&1 >/dev/null | grep -q 'because another process froze on an error' \
    || { "$CUTAP" report "$d" >&2; exit 1; }

# 3. capture control
capture() {   # NAME PROGRAM MODE OPTIONS...: traced with OPTIONS; $WORK/NAME
    local name=$1 prog=$2 mode=$3; shift 3
    rm -f "$go2"; ( sleep 2; touch "$go2" ) &
    T_RING_GO2=$go2 "$CUTAP" trace "$@" -o "$WORK/$name" -- $prog 4 200 "$mode" >/dev/null 2>&1 || { say "  $name failed"; exit 1; }
    wait
}
touch "$go"
T_RING_GO2= "$CUTAP" trace -o "$WORK/cplain" -- $T/t_ring 4 200 phase,prof >/dev/null 2>&1 || exit 1
cplain=$(total "$WORK/cplain")
check() {   # NAME c d e: records of the phases' communicators; totals exact
    local n=$1 c d e
    c=$(recs "$WORK/$n" 'comm=0xc'); d=$(recs "$WORK/$n" 'comm=0xd'); e=$(recs "$WORK/$n" 'comm=0xe')
    [ "$c $d $e" = "$2 $3 $4" ] || { say "  $n: records of phases 1, 2, 3: $c $d $e, want $2 $3 $4"; exit 1; }
    [ "$(total "$WORK/$n")" = "$5" ] || { say "  $n: $(total "$WORK/$n") calls recorded or counted, want $5"; exit 1; }
    "$CUTAP" report "$WORK/$n" 2>&1 >/dev/null | grep -q "recorded only inside $6 capture range" \
        || { say "  $n: no capture note"; "$CUTAP" report "$WORK/$n" >&2; exit 1; }
}
capture delay $T/t_ring phase,prof --delay 1; check delay 0 800 200 "$cplain" 1
capture duration $T/t_ring phase,prof --duration 1; check duration 800 0 0 "$cplain" 1
capture prof $T/t_ring phase,prof --capture-range cudaProfilerApi; check prof 0 800 0 "$cplain" 1
"$CUTAP" dump "$WORK/prof" 2>/dev/null | grep -q 'cuProfilerStart()' && "$CUTAP" dump "$WORK/prof" 2>/dev/null | grep -q 'cuProfilerStop()' \
    || { say "  the profiler calls that open and close the range are not recorded"; exit 1; }
capture none $T/t_ring phase,prof --capture-range nvtx:nosuch; check none 0 0 0 "$cplain" 0
if [ -x $T/t_ring_nvtx ]; then
    T_RING_GO2= "$CUTAP" trace -o "$WORK/nplain" -- $T/t_ring_nvtx 4 200 phase,nvtx >/dev/null 2>&1 || exit 1
    capture nvtx $T/t_ring_nvtx phase,nvtx --capture-range nvtx:step; check nvtx 0 800 0 "$(total "$WORK/nplain")" 1
    "$CUTAP" dump "$WORK/nvtx" 2>/dev/null | grep -q 'nvtxRangePushA(message="step")' || { say "  the push not recorded"; exit 1; }
fi

# 4. refused
for bad in "--capture-range foo" "--capture-range nvtx:" "--delay -1" "--delay x" "--duration 0" \
           "--until-error layer=nosuch" "--no-nvtx --capture-range nvtx:step"; do
    # shellcheck disable=SC2086
    "$CUTAP" trace $bad -o "$WORK/bad" -- true 2>"$WORK/bad.err"; rc=$?
    [ $rc = 2 ] && [ -s "$WORK/bad.err" ] && [ ! -e "$WORK/bad" ] || { say "  '$bad': exit $rc"; cat "$WORK/bad.err" >&2; exit 1; }
done
exit 0
