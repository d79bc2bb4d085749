#!/usr/bin/env bash
# GPU activity (issue #31) on the device machine: tests/gpu/gpu_activity.sh
# 1. workloads/gpu_activity.cu (static and shared cudart) under
#    `cutap trace --gpu`: every kernel, copy and memset of known counts,
#    each joined to its launching call (gpu_check.py --expect, an
#    independent reading of the files); its output as bare.
# 2. Each workload (the program above, GPU_WORKLOADS: PyTorch ones by
#    default) run twice, under `cutap trace --gpu` and under the referee
#    (gpu_ref.c, a bare CUPTI activity client): counts per kernel name,
#    copy direction and memset equal, medians compared (gpu_compare.py);
#    joins (gpu_check.py); report --gpu and dump's [gpu] lines shown.
#    With 2 GPUs: NCCL in one process over both, and 2-rank DDP.
#    GPU_CONTROL=1: the referee run a second time and compared with its
#    first run: the run-to-run spread of the medians, cutap not involved.
# 2b. PyTorch's profiler (a CUPTI activity client of its own) bare, under
#    `cutap trace` (cutap's cuptiActivityRegisterCallbacks export passes
#    the profiler's client on) and under `cutap trace --gpu` (cutap yields
#    its activity to the profiler): the profiler's counts as bare.
# 2c. GPU_KEEP=DIR: the 2-rank DDP trace (with --gpu) left in DIR as
#    ddp.tar.gz (a multi-rank trace for the Parquet export, issue #33).
# 3. GPU_COST=N: the CPU-bound PyTorch step, bare / trace / trace --gpu /
#    the referee, N cycles (bench/gpu/run.sh); with BENCH_NSYS=1 nsys too;
#    with GPU_BOUND=1 the GPU-bound step as well.
set -u
cd "$(dirname "$0")/../.."
B=build/gpu W=tests/gpu/workloads
export PATH=/usr/local/cuda/bin:$PATH
[ -x build/cutap ] && [ -f $B/libgpu_ref.so ] && [ -x $B/gpu_activity_static ] || tests/gpu/build.sh >/dev/null || exit 1
T=$(mktemp -d /tmp/cutap-gpu.XXXXXX)
BAD=0
N=50
for v in static shared; do
  echo "== gpu_activity ($v cudart), $N rounds"
  bare=$($B/gpu_activity_$v $N)
  got=$(build/cutap trace --gpu -o $T/ga_$v -- $B/gpu_activity_$v $N 2>$T/ga_$v.err)
  [ "$got" = "$bare" ] || { echo "  OUTPUT CHANGED: $got"; BAD=1; }
  python3 tests/gpu/gpu_check.py $T/ga_$v --expect "scale=$((3 * N)) add_one=$((2 * N)) memcpy=$((3 * N)) memset=$((2 * N))" | tail -3 || BAD=1
done
build/cutap report --gpu $T/ga_static
build/cutap dump $T/ga_static | grep -B1 -A2 -m3 '\[gpu\] kernel' | head -12
run_ref() {   # NAME CMD...: the referee's run into $T/ref_NAME
  local n=$1; shift
  mkdir -p $T/ref_$n
  CUDA_INJECTION64_PATH=$PWD/$B/libgpu_ref.so GPU_REF_DIR=$T/ref_$n timeout 300 "$@" >/dev/null 2>$T/ref_$n.err || { echo "  referee run failed"; tail -3 $T/ref_$n.err; BAD=1; }
}
exports() {   # NAME: every export of $T/NAME, checked (GPU slices, flows, rows)
  build/cutap export --format jsonl -o $T/$1.jsonl $T/$1 && build/cutap export --format perfetto-proto -o $T/$1.pftrace $T/$1 \
    && build/cutap export --format perfetto -o $T/$1.pf.json $T/$1 || { echo "  export failed"; BAD=1; return; }
  python3 tests/lib/pftrace_check.py $T/$1.pftrace $T/$1.jsonl | sed 's/^/  perfetto-proto: /' || BAD=1
  python3 -c "
import json, sys
g = [json.loads(l) for l in open('$T/$1.jsonl') if '\"type\":\"gpu\"' in l]
ev = json.load(open('$T/$1.pf.json'))['traceEvents']
x = sum(1 for e in ev if e.get('cat') == 'gpu' and e['ph'] == 'X'); s = sum(1 for e in ev if e['ph'] == 's')
print('  jsonl gpu lines %d (joined %d); perfetto gpu slices %d, flows %d' % (len(g), sum(1 for y in g if y['call']), x, s))
" || BAD=1
}
compare() {   # NAME CMD...
  local n=$1; shift
  echo "== $n: cutap trace --gpu against the referee"
  timeout 300 build/cutap trace --gpu -o $T/$n -- "$@" >/dev/null 2>$T/$n.err || { echo "  failed"; tail -5 $T/$n.err; BAD=1; return; }
  run_ref $n "$@"
  python3 tests/gpu/gpu_check.py $T/$n | grep -E "^  (kernels|joined)"
  build/cutap report --gpu --format csv $T/$n >$T/$n.csv || BAD=1
  python3 tests/gpu/gpu_compare.py $T/$n.csv $T/ref_$n || BAD=1
  if [ -n "${GPU_CONTROL:-}" ]; then
    run_ref ${n}_b "$@"
    echo "  control, the referee against itself:"
    python3 tests/gpu/gpu_compare.py $T/ref_$n $T/ref_${n}_b
  fi
  build/cutap report --gpu --top 4 $T/$n | cut -c1-150 | head -16
  exports $n
}
compare gpu_activity $B/gpu_activity_static 200
echo "== gpu_activity (static cudart) under --gpu --runtime=cupti"
build/cutap trace --gpu --runtime=cupti -o $T/ga_cupti -- $B/gpu_activity_static $N >/dev/null 2>$T/ga_cupti.err || BAD=1
python3 tests/gpu/gpu_check.py $T/ga_cupti --expect "scale=$((3 * N)) add_one=$((2 * N)) memcpy=$((3 * N)) memset=$((2 * N))" | tail -4 || BAD=1
echo "== torch_profiler (the program's own CUPTI client)"
python3 $W/torch_profiler.py >$T/p.bare 2>/dev/null
build/cutap trace -o $T/pt -- python3 $W/torch_profiler.py >$T/p.trace 2>$T/p.trace.err
build/cutap trace --gpu -o $T/pg -- python3 $W/torch_profiler.py >$T/p.gpu 2>$T/p.gpu.err
echo "  $(grep -c '^profiler' $T/p.bare) event names, $(awk '/^profiler/ {s+=$3} END {print s}' $T/p.bare) events bare;" \
     "same under trace: $(cmp -s $T/p.bare $T/p.trace && echo yes || echo NO); under trace --gpu: $(cmp -s $T/p.bare $T/p.gpu && echo yes || echo NO)"
cmp -s $T/p.bare $T/p.trace && cmp -s $T/p.bare $T/p.gpu || { diff $T/p.bare $T/p.gpu | head -6; BAD=1; }
grep -i "gpu\|cupti" $T/p.gpu.err | head -3 | sed 's/^/  stderr: /'
build/cutap report --gpu $T/pg 2>&1 | grep -m4 "^process" | cut -c1-200 | sed 's/^/  report: /'
python3 tests/gpu/gpu_check.py $T/pg | sed -n 2,3p
for w in ${GPU_WORKLOADS:-torch_step torch_graph torch_conv_graph jax_step cupy_step}; do
  compare $w python3 $W/$w.py
done
# NCCL: one process over every GPU, and 2-rank DDP (one process a GPU),
# where the machine has 2 GPUs (nvidia-h100-x2)
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
  [ -x $B/nccl_allreduce ] && compare nccl_allreduce $B/nccl_allreduce
  NCCL_NVLS_ENABLE=0 compare ddp_allreduce torchrun --standalone --nproc_per_node=2 $W/ddp_allreduce.py
  [ -n "${GPU_KEEP:-}" ] && mkdir -p "$GPU_KEEP" && tar czf "$GPU_KEEP/ddp.tar.gz" -C $T ddp_allreduce
fi
# (GPU_BOUND=1: the GPU-bound step too, same modes)
[ -n "${GPU_COST:-}" ] && BENCH_CPU_ONLY=$([ -n "${GPU_BOUND:-}" ] || echo 1) SKIP_OVERHEAD=1 BENCH_MODES="bare trace tgpu gpuref" \
  BENCH_GPU_MODES="bare trace tgpu gpuref" bench/gpu/run.sh "$GPU_COST" 2>/dev/null | grep -v "^  cycle"
rm -rf "$T"
exit $BAD
