#!/usr/bin/env bash
# The CPU-bound PyTorch step's recording cost measured inside one process
# (device machine only):   bench/gpu/step_ab.sh [PROCS [PAIRS]]
# Each process runs bench/gpu/torch_steps.py with STEP_AB=PAIRS under
# cutap: windows alternate between cutap's recording client off and on
# through the public API (see torch_steps.py), so each pair compares the
# same process, cores and GPU state. Modes, PROCS processes each, in turn:
#   trace  cutap trace (the recording cost: on against the pass-through)
#   stat   cutap stat
#   pass   libcutap.so preloaded with no client: nothing to turn off, so
#          its pairs measure the windows' own noise (the control)
# Prints per mode the median of every pair's on/off ratio as a change in
# per cent, its spread (min..max over pairs) and each process's median.
# BENCH_PIN picks the cores (default 4-11; a single core such as 4 too).
set -u
cd "$(dirname "$0")/../.."
N=${1:-4}
P=${2:-8}
[ -x build/cutap ] || tests/gpu/build.sh || exit 1
PIN="taskset -c ${BENCH_PIN:-4-11}"
$PIN true 2>/dev/null || PIN=
T=$(mktemp -d /tmp/cutap-ab.XXXXXX)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), cores ${BENCH_PIN:-4-11}, $N processes x $P pairs a mode"
one() {   # MODE I
  case $1 in
    trace) STEP_AB=$P timeout 300 $PIN build/cutap trace -o "$T/t$2" -- python3 bench/gpu/torch_steps.py 2>/dev/null ;;
    stat) STEP_AB=$P timeout 300 $PIN build/cutap stat -o "$T/s$2.txt" -- python3 bench/gpu/torch_steps.py ;;
    pass) STEP_AB=$P LD_PRELOAD=$PWD/build/libcutap.so timeout 300 $PIN python3 bench/gpu/torch_steps.py ;;
  esac > "$T/$1.$2.out"
  grep -q ab_median "$T/$1.$2.out" || { echo "  $1 process $2 failed:"; sed 's/^/    /' "$T/$1.$2.out" | tail -5; BAD=1; }
}
BAD=
for i in $(seq "$N"); do for m in trace stat pass; do one $m $i; done; done
for m in trace stat pass; do
  cat "$T/$m".*.out 2>/dev/null | awk -v m=$m '
    /^ab_recording/ {rec = $2}
    /^ab_ratio/ {r[++n] = $2}
    /^ab_median/ {pm = pm sprintf(" %+.1f", ($2 - 1) * 100)}
    END {
      if (!n) { printf "  %-5s no pairs\n", m; exit }
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
      med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
      printf "  %-5s %+6.2f %%  (pairs %+.1f..%+.1f %%, %d pairs; per process%s)%s\n", m, (med - 1) * 100,
             (r[1] - 1) * 100, (r[n] - 1) * 100, n, pm, rec == 1 ? "" : "  [nothing recording: control]"
    }'
done
rm -rf "$T"
[ -z "$BAD" ]
