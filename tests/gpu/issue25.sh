#!/usr/bin/env bash
# Issue #25 on the device machine: every runtime call of every runtime copy
# by default, without CUPTI, beside CUPTI clients.
#   tests/gpu/issue25.sh probe|cover WORKLOAD...|clients|bench
# probe:   the protocol (tests/gpu/rt_hooks_probe.cu, no cutap), static and
#          shared cudart: the phase lines (who calls which slot, the words)
# cover:   tests/gpu/runtime_coverage.sh with RTCOV_REPEAT=1 RTCOV_BOTH=1:
#          plain `cutap trace` against the referee alone, two referee runs
#          against each other, and cutap with the referee beside it
# clients: PyTorch's profiler (tests/gpu/workloads/torch_profiler.py) bare,
#          under plain `cutap trace` and under --runtime=symbols: its
#          per-name counts (the output) must not change; nsys profile -t
#          cuda around cutap trace of the static vecadd: nsys's exit status,
#          the output, and cutap's runtime calls against the referee's
# bench:   bench/gpu/rtcall.sh pinned to one core and to four, then the
#          CPU-bound PyTorch step (bench/gpu/run.sh) on four cores and on one
#          (BENCH_CYCLES, default 5)
# On a 2-GPU kind (nvidia-h100-x2), `cover torchrun_2gpu` adds the 2-rank
# DDP run.
set -u
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
B=build/gpu W=tests/gpu/workloads C=build/cutap
what=${1:-probe}; shift || true
tests/gpu/build.sh >/dev/null || exit 1
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi -L | grep -c '^GPU') x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
case $what in
probe)
  L=/usr/local/cuda/lib64
  for m in static shared; do
    nvcc -O1 -cudart $m -o $B/rt_hooks_probe_$m tests/gpu/rt_hooks_probe.cu -lcuda -L$L -lcupti -Xlinker -rpath=$L || exit 1
    echo "-- cudart $m"
    $B/rt_hooks_probe_$m | grep -E '^(TOOLS|#2 ->|  nonzero|  phase|  CUPTI callbacks)' | cut -c1-160
  done ;;
cover)
  RTCOV_REPEAT=1 RTCOV_BOTH=1 tests/gpu/runtime_coverage.sh "$@" ;;
clients)
  R=$(mktemp -d /tmp/cutap-i25.XXXXXX)
  python3 $W/torch_profiler.py >$R/p.bare 2>/dev/null
  $C trace -o $R/pt -- python3 $W/torch_profiler.py >$R/p.trace 2>$R/p.trace.err
  $C trace --runtime=symbols -o $R/ps -- python3 $W/torch_profiler.py >$R/p.sym 2>/dev/null
  echo "torch profiler: $(grep -c '^profiler' $R/p.bare) event names, $(awk '/^profiler/ {s+=$3} END {print s}' $R/p.bare) events;" \
       "same under trace: $(cmp -s $R/p.bare $R/p.trace && echo yes || echo NO); under --runtime=symbols: $(cmp -s $R/p.bare $R/p.sym && echo yes || echo NO)"
  cmp -s $R/p.bare $R/p.trace || diff $R/p.bare $R/p.trace | head -8
  $C report --format csv $R/pt | awk -F, '$1 == "runtime" {n += $3} END {print "  cutap trace recorded " n " runtime calls beside the profiler"}'
  NSYS=$(ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys /usr/local/cuda/bin/nsys 2>/dev/null | head -1)
  if [ -n "$NSYS" ]; then
    mkdir -p $R/ref
    CUDA_INJECTION64_PATH=$PWD/$B/libcupti_ref.so CUTAP_REF_DIR=$R/ref $B/vecadd_static >$R/v.ref 2>/dev/null
    $B/vecadd_static >$R/v.bare 2>/dev/null
    # the program's stdout into a file of its own: nsys prints to stdout too
    timeout 300 "$NSYS" profile -t cuda -o $R/nsys1 $C trace -o $R/vt -- sh -c "exec $B/vecadd_static >$R/v.nsys.prog" \
      >$R/v.nsys 2>$R/v.nsys.err; rc=$?
    $C export --format sqlite -o $R/vt.db $R/vt 2>/dev/null
    echo "nsys profile -t cuda around cutap trace of vecadd_static: exit $rc, report $(ls $R/nsys1.* 2>/dev/null | head -1 | xargs -r stat -c %s) bytes," \
         "output same: $(cmp -s $R/v.bare $R/v.nsys.prog && echo yes || echo NO)"
    python3 tests/gpu/runtime_coverage.py vecadd_static_nsys $R/ref $R/vt.db | head -3
  else
    echo "nsys: not found"
  fi
  rm -rf $R ;;
bench)
  # the induced TOOLS_TLS#2 calls must be learned (at most 2 recorded per
  # reporting site; 2 per runtime call when not): check it first
  R=$(mktemp -d /tmp/cutap-i25.XXXXXX)
  $C trace -o $R/t -- $B/rtcall_static >/dev/null 2>&1
  $C report --format csv $R/t | awk -F, '$2 == "cudaGetDevice" || $2 == "TOOLS_TLS#2" {print "  traced rtcall_static:", $2, $3}'
  rm -rf $R
  for pin in 0 0-3; do RTCALL_PIN=$pin bench/gpu/rtcall.sh 3; done
  for pin in 4-7 4; do
    echo "-- CPU-bound PyTorch step pinned to cores $pin"
    SKIP_OVERHEAD=1 BENCH_CPU_ONLY=1 BENCH_PIN=$pin BENCH_MODES="bare tracesym trace tracecupti cupti" bench/gpu/run.sh "${BENCH_CYCLES:-5}"
  done ;;
esac
