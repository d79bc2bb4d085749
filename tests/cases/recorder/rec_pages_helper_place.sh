#!/usr/bin/env bash
# Where trace mode's page helper runs (issue #27; src/record/file.c,
# "Where it runs"): a program pinned to CPU 0 makes a cutap-pages thread
# that moves to the CPUs the program may not use (here: all but 0) at the
# normal policy (CUTAP_PAGES unset or "away"); CUTAP_PAGES=same leaves it
# on CPU 0 (as before), CUTAP_PAGES=idle leaves it there as SCHED_IDLE,
# CUTAP_PAGES=off makes none; a bad value is said (in the directory's
# registry) and taken as away. Where the helper can go nowhere but the
# program's one CPU (a cpuset refusing the others: a sched_setaffinity that
# fails, tests/lib_nosetaffinity.c) no helper runs (its pages are
# populated by the calls' threads); a program allowed CPUs 0 and 1 keeps
# its helper there. The program's own threads keep their CPUs, and every
# call is recorded in each case.
. "$(dirname "$0")/../../lib/init.sh"
command -v taskset >/dev/null || { say "  no taskset"; exit 77; }
[ "$(nproc --all)" -ge 2 ] && taskset -c 1 true 2>/dev/null || { say "  fewer than 2 usable CPUs"; exit 77; }

# mode -> "CPUS POLICY" of the helper ("none" without one), and the
# program's main thread's CPUs
helper_of() {   # MODE [CPUS [SHIM]]
    rm -rf "$WORK/pg" "$WORK/pg.out"
    local cpus=${2:-0}
    CUTAP_PAGES=$1 CUTAP_TRACE=$WORK/pg taskset -c $cpus env LD_PRELOAD="$LIB${3:+ $3}" $T/t_record wait 20000 >"$WORK/pg.out" &
    local pid=$! h=none t
    for i in $(seq 100); do grep -q ready "$WORK/pg.out" 2>/dev/null && break; sleep 0.05; done
    sleep 0.3   # the helper names and places itself as it starts
    for t in /proc/$pid/task/*; do
        grep -qx cutap-pages $t/comm 2>/dev/null || continue
        h="$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' $t/status) $(sed -n 's/^policy[[:space:]]*:[[:space:]]*//p' $t/sched)"
    done
    main=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)
    kill -TERM $pid; wait $pid 2>/dev/null
    "$CUTAP" report --format csv "$WORK/pg" 2>/dev/null | grep -q "^driver,cuCtxGetCurrent,20000,0," \
        || { say "  CUTAP_PAGES=$1: not every call recorded"; return 1; }
    [ "$main" = "$cpus" ] || { say "  CUTAP_PAGES=$1: the program's thread moved to CPUs $main"; return 1; }
    echo "$h"
}
last=$(( $(nproc --all) - 1 ))
away="1 0"; [ "$last" -gt 1 ] && away="1-$last 0"
for v in ":$away" "away:$away" "bogus:$away" "same:0 0" "idle:0 5" "off:none"; do
    mode=${v%%:*} want=${v#*:}
    got=$(helper_of "$mode") || exit 1
    [ "$got" = "$want" ] || { say "  CUTAP_PAGES=$mode: helper on CPUs/policy '$got', want '$want'"; exit 1; }
    [ "$mode" != bogus ] || reg_says "$WORK/pg" 'CUTAP_PAGES=bogus: takes away, idle, same or off' \
        || { say "  a bad CUTAP_PAGES was not said"; exit 1; }
done
# nowhere to go (the shim refuses every affinity change)
[ -f $T/libnosetaffinity.so ] || { say "  no libnosetaffinity.so"; exit 1; }
got=$(helper_of away 0 $T/libnosetaffinity.so) || exit 1
[ "$got" = none ] || { say "  refused elsewhere, pinned to CPU 0: helper '$got', want none"; exit 1; }
got=$(helper_of away 0-1 $T/libnosetaffinity.so) || exit 1
[ "$got" = "0-1 0" ] || { say "  refused elsewhere, allowed CPUs 0-1: helper '$got', want '0-1 0'"; exit 1; }
