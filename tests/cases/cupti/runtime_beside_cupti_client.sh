#!/usr/bin/env bash
# Issue #25: a CUPTI client in the traced process (tests/lib_cupti_client.c
# on the fake libcupti, as nsys, the PyTorch profiler or a referee is)
# keeps getting exactly the runtime reports it gets without cutap, with
# the context uid the driver's #4 fills, while cutap records every runtime
# call once, as without the client: the program's static copy
# (t_static_rt), and a library copy beside a shared libcudart from 16
# threads (t_rt_mix: the shared copy reports to the client only, our
# wrapper records its calls). Also when the client turns its domain off
# midway (CLIENT_OFF_AT): reports stop reaching it exactly where they stop
# without cutap.
. "$(dirname "$0")/../../lib/init.sh"

CL=$T/libcupti_client.so
client() { grep '^CLIENT entries' "$1" | grep -v '^CLIENT entries 0 exits 0 uid_bad 0 names$'; }
for off in "" 50; do   # 50: inside the single-threaded 70-deep nest
    CLIENT_OFF_AT=$off LD_PRELOAD=$CL $T/t_static_rt >"$WORK/b.out" 2>"$WORK/b.err" || exit 1
    CLIENT_OFF_AT=$off LD_PRELOAD=$CL srt_run k1 || exit 1
    want=$(client "$WORK/b.err"); got=$(client "$WORK/k1.err")
    [ -n "$want" ] && [ "$want" = "$got" ] || { say "  off '$off': the client got '$got', without cutap '$want'"; exit 1; }
    case $want in *" uid_bad 0 "*) ;; *) say "  context uid not filled: $want"; exit 1;; esac
    srt_recorded k1 1 && srt_same_output k1 || exit 1
    [ "$(grep -c '^RTCALL' "$WORK/k1.err")" = 275 ] || { say "  cutap's calls changed"; exit 1; }
done
say "  t_static_rt: the client's reports as without cutap ($want)"
n=$((2 * 16 * 50))
LD_PRELOAD=$CL $T/t_rt_mix 16 50 >"$WORK/mb.out" 2>"$WORK/mb.err" || exit 1
LD_PRELOAD=$CL "$CUTAP" trace -o "$WORK/m" -- $T/t_rt_mix 16 50 >"$WORK/m.out" 2>"$WORK/m.err" || exit 1
want=$(client "$WORK/mb.err"); got=$(client "$WORK/m.err")
[ "$want" = "CLIENT entries $n exits $n uid_bad 0 names cudaMalloc:$n" ] && [ "$want" = "$got" ] \
    || { say "  t_rt_mix: the client got '$got', without cutap '$want'"; exit 1; }
cmp -s "$WORK/mb.out" "$WORK/m.out" || { say "  output changed"; exit 1; }
[ "$("$CUTAP" report --format csv "$WORK/m" | awk -F, '$2 == "cudaMalloc" { print $3 }')" = $n ] \
    || { say "  cutap's cudaMalloc count changed"; exit 1; }
say "  t_rt_mix: the client's reports as without cutap, $n cudaMalloc recorded once each"
