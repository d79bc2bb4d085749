#!/usr/bin/env bash
# cutap test runner: `tests/run.sh [-j N] [-k] [--list] [PATTERN...]` runs
# the cases of tests/cases (tests/list --cases) whose names match a
# PATTERN (shell globs; a subsystem's name, or SUBSYSTEM/GLOB, selects by
# subsystem; all cases when none), N at a time (default: the number of
# CPUs), each in a fresh work directory with its own log,
# build/tests/logs/SUBSYSTEM/NAME.log. It prints PASS/FAIL/SKIP, the name
# and the time of each case as it ends (a failure with the tail of its
# log) and closes with "N passed, N failed, N skipped"; exit status 0 when
# none failed. A case exits 0 (pass), 77 (skip) or else (fail). A case
# marked "# serial" in its header runs alone, before the others; "# slow"
# ones start first among the others.
# -k keeps every work directory (a failed case's is always kept); --list
# prints the cases selected. Built by `make test-build`; `make test` runs it.
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
B=${CUTAP_TEST_BUILD:-$ROOT/build}   # make test passes BUILD
export CUTAP_TEST_BUILD=$B
LOGS=$B/tests/logs
TIMEOUT=${CUTAP_TEST_TIMEOUT:-900}   # seconds a case may take

jobs=${CUTAP_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
keep=0 list=0 pats=()
while [ $# -gt 0 ]; do
    case $1 in
        -j) jobs=${2:-}; shift 2 || { echo "run.sh: -j takes a number" >&2; exit 2; } ;;
        -j*) jobs=${1#-j}; shift ;;
        -k) keep=1; shift ;;
        --list|-l) list=1; shift ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        --) shift; pats+=("$@"); break ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) pats+=("$1"); shift ;;
    esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -j takes a number, not '$jobs'" >&2; exit 2; }

# --- the cases selected --------------------------------------------------------
all=$(tests/list --cases) || { echo "run.sh: tests/list failed" >&2; exit 2; }
dups=$(cut -f1 <<<"$all" | sort | uniq -d)
[ -z "$dups" ] || { echo "run.sh: case names used twice: $dups" >&2; exit 2; }
names=() subs=() scripts=() argss=() tagss=()
while IFS=$'\t' read -r n s script args tags; do
    [ "$args" = - ] && args=
    [ "$tags" = - ] && tags=
    if [ ${#pats[@]} -gt 0 ]; then
        hit=0
        for p in "${pats[@]}"; do
            # shellcheck disable=SC2053
            if [[ $n == $p || $s == "$p" || $s/$n == $p ]]; then hit=1; break; fi
        done
        [ $hit = 1 ] || continue
    fi
    names+=("$n") subs+=("$s") scripts+=("$script") argss+=("$args") tagss+=("$tags")
done <<<"$all"
[ ${#names[@]} -gt 0 ] || { echo "run.sh: no case matches: ${pats[*]}" >&2; exit 2; }
if [ $list = 1 ]; then
    for i in "${!names[@]}"; do printf '%s/%s%s\n' "${subs[$i]}" "${names[$i]}" "${tagss[$i]:+ (${tagss[$i]})}"; done
    exit 0
fi

# The order: the serial cases, each alone; then the longest first (the
# times of the last run, $LOGS/durations; without them, the slow cases
# first), the rest as listed.
is() { [[ ,${tagss[$2]}, == *,$1,* ]]; }   # is TAG I
declare -A last_ms=()
if [ -r "$LOGS/durations" ]; then
    while read -r n ms; do [[ $ms =~ ^[0-9]+$ ]] && last_ms[$n]=$ms; done <"$LOGS/durations"
fi
queue=()
for i in "${!names[@]}"; do is serial "$i" && queue+=("$i"); done
queue+=($(for i in "${!names[@]}"; do
    is serial "$i" && continue
    k=${last_ms[${names[$i]}]:-}; [ -n "$k" ] || { is slow "$i" && k=999999999 || k=-1; }
    echo "$k $i"
done | sort -s -k1,1nr | cut -d' ' -f2))

WROOT=$(mktemp -d /tmp/cutap-tests.XXXXXX) || exit 2
RES=$WROOT/.results
mkdir -p "$RES" "$LOGS" && mkfifo "$WROOT/.ended" && exec 3<>"$WROOT/.ended" || exit 2

# tree PID: PID and every process below it (cases start commands under
# timeout, each in a process group of its own, so no one group holds all)
tree() { local c; echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }

# run_case I: case I in the background; its status and time go to $RES/I,
# then a line to the pipe the runner waits on (fd 3).
run_case() {
    local i=$1 n=${names[$1]}
    local log=$LOGS/${subs[$i]}/$n.log work=$WROOT/$n args=${argss[$i]//\{B\}/$B}
    local words=(); read -r -a words <<<"$args"
    mkdir -p "${log%/*}" && rm -rf "$work" && mkdir -p "$work" || { echo "1 0" >"$RES/$i"; echo "$i" >&3; return; }
    local start; start=$(date +%s%N)
    CUTAP_TEST_WORK=$work timeout -k 10 "$TIMEOUT" \
        bash "tests/cases/${scripts[$i]}" ${words[@]+"${words[@]}"} </dev/null >"$log" 2>&1 3>&- &
    local tpid=$! rc
    # interrupted: the case and everything it started
    trap 'kill -TERM $(tree $tpid) 2>/dev/null' TERM
    wait $tpid; rc=$?
    while kill -0 $tpid 2>/dev/null; do wait $tpid; rc=$?; done
    [ $rc = 124 ] && echo "run.sh: $n killed after $TIMEOUT s (CUTAP_TEST_TIMEOUT)" >>"$log"
    echo "$rc $(( ($(date +%s%N) - start) / 1000000 ))" >"$RES/$i"
    echo "$i" >&3
}

pass=0 fail=0 skip=0 serial_on=0
failed_names=() running=()
declare -A pid_of=()
finish() {   # finish I: report case I, which has ended
    local i=$1 n=${names[$1]} rc ms
    read -r rc ms <"$RES/$i"
    last_ms[$n]=$ms
    local log=$LOGS/${subs[$i]}/$n.log
    if [ "$rc" = 0 ]; then pass=$((pass + 1)); printf 'PASS %-38s %7d ms\n' "$n" "$ms"
    elif [ "$rc" = 77 ]; then skip=$((skip + 1)); printf 'SKIP %-38s %7d ms\n' "$n" "$ms"
    else
        fail=$((fail + 1)); failed_names+=("$n")
        printf 'FAIL %-38s %7d ms   (exit %s; log %s, work directory %s)\n' "$n" "$ms" "$rc" "$log" "$WROOT/$n"
        tail -n 40 "$log" | sed 's/^/    /'
    fi
    [ "$rc" != 0 ] && [ "$rc" != 77 ] || [ $keep = 1 ] || rm -rf "${WROOT:?}/$n"
    is serial "$i" && serial_on=0
}
reap() {   # reap I: case I has ended: report it, drop it from running
    local j still=()
    wait "${pid_of[$1]}" 2>/dev/null
    finish "$1"
    for j in "${running[@]}"; do [ "$j" = "$1" ] || still+=("$j"); done
    running=(${still[@]+"${still[@]}"})
}
stop() {
    local i
    for i in ${running[@]+"${running[@]}"}; do kill -TERM "${pid_of[$i]}" 2>/dev/null; done
    wait
    echo "run.sh: interrupted; work directories in $WROOT" >&2
    exit 130
}
trap stop INT TERM

echo "${#queue[@]} cases, $jobs at a time; logs in $LOGS"
while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
    # start what may start: the next case while a slot is free, a serial
    # case only when nothing runs, nothing beside a serial case
    while [ ${#running[@]} -lt "$jobs" ] && [ ${#queue[@]} -gt 0 ] && [ $serial_on = 0 ]; do
        i=${queue[0]}
        if is serial "$i"; then [ ${#running[@]} = 0 ] || break; serial_on=1; fi
        queue=(${queue[@]+"${queue[@]:1}"})
        run_case "$i" &
        pid_of[$i]=$!
        running+=("$i")
    done
    # Woken by a case that ended (or after a second, so that a TERM or INT
    # trapped meanwhile is acted on), reap every case whose result is
    # there: what the pipe says is only a wake-up (a line may come cut in
    # two by the timeout).
    read -r -t 1 -u 3 _ || true
    for i in ${running[@]+"${running[@]}"}; do [ -e "$RES/$i" ] && reap "$i"; done
done

for n in "${!last_ms[@]}"; do echo "$n ${last_ms[$n]}"; done | sort >"$LOGS/durations.new" && mv "$LOGS/durations.new" "$LOGS/durations"
[ $fail -eq 0 ] && { [ $keep = 1 ] || rm -rf "$WROOT"; } || echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
