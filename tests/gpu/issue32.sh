#!/usr/bin/env bash
# Issue #32 on the device machine (never in CI):
#   tests/gpu/issue32.sh [WORKLOAD...]
# For each workload: bare, then under `cutap trace --ioctl-params` with an
# independent getenv counter preloaded before libcutap.so
# (tests/gpu/getenv_count.c: trampolines that keep the caller's return
# address, so that cutap still sees the NVIDIA caller); stdout and exit
# status compared with the bare run; the environment lookups compared per
# process, object and name (tests/gpu/env_check.py); then, over all the
# traces, how many distinct RM controls and classes were decoded by field
# (tests/gpu/ioctl_params_count.py). Then the mappings: what libcuda imports
# to unmap, and tests/gpu/workloads/maps_probe.c bare and traced (the
# device-file mappings after each step, and the trace's mmap/munmap/mremap
# records by class), and the same program and torch_step bare under
# tests/gpu/maps_shim.c (how libcuda itself maps and unmaps).
# ISSUE32_SKIP_MAIN=1: the mappings part only. Prints a table; everything
# made goes to $OUT.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd -P) B=$ROOT/build/gpu W=$ROOT/tests/gpu/workloads C=$ROOT/build/cutap
OUTDIR=${OUT:-/tmp/cutap-32}
R=$(mktemp -d /tmp/cutap-32.XXXXXX)
export PATH=/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$OUTDIR"
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi -L | grep -c '^GPU') x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
tests/gpu/build.sh || exit 1
gcc -O2 -shared -fPIC -o "$B/libgetenv_count.so" tests/gpu/getenv_count.c -ldl || exit 1
gcc -O2 -shared -fPIC -o "$B/libmaps_shim.so" tests/gpu/maps_shim.c -ldl || exit 1
gcc -O2 -I/usr/local/cuda/include "$W/maps_probe.c" -o "$B/maps_probe" -L/usr/local/cuda/lib64/stubs -lcuda || exit 1
declare -A CMD=(
  [torch_step]="python3 $W/torch_step.py" [torch_conv_graph]="python3 $W/torch_conv_graph.py"
  [jax_step]="python3 $W/jax_step.py" [cupy_step]="python3 $W/cupy_step.py"
  [nccl_allreduce]="$B/nccl_allreduce" [cublas_gemm]="$B/cublas_gemm" [maps_probe]="$B/maps_probe")
ORDER="torch_step torch_conv_graph jax_step cupy_step nccl_allreduce cublas_gemm maps_probe"
[ $# -gt 0 ] && ORDER="$*"
[ -n "${ISSUE32_SKIP_MAIN:-}" ] && ORDER=maps_probe
printf '%-18s %6s %6s %6s %s\n' workload same rc env "lookups (counter / cutap, NVIDIA objects)"
DIRS=
for n in $ORDER; do
  timeout 300 ${CMD[$n]} >"$R/$n.bare.out" 2>"$R/$n.bare.err"; echo $? >"$R/$n.bare.rc"
  rm -rf "$R/$n.count"; mkdir -p "$R/$n.count"
  # the exact path cutap's own would have: it then keeps this order
  LD_PRELOAD=$B/libgetenv_count.so:$(realpath "$ROOT/build/libcutap.so") GETENV_COUNT_DIR=$R/$n.count \
    timeout 300 $C trace --ioctl-params -o "$R/$n.trace" -- ${CMD[$n]} >"$R/$n.trace.out" 2>"$R/$n.trace.err"
  echo $? >"$R/$n.trace.rc"
  same=no; cmp -s "$R/$n.bare.out" "$R/$n.trace.out" && [ "$(cat "$R/$n.bare.rc")" = "$(cat "$R/$n.trace.rc")" ] && same=yes
  python3 tests/gpu/env_check.py --cutap "$C" "$R/$n.trace" "$R/$n.count" >"$R/$n.env" 2>&1 && env=PASS || env=FAIL
  printf '%-18s %6s %6s %6s %s\n' "$n" "$same" "$(cat "$R/$n.trace.rc")" "$env" \
    "$(grep -m1 '^total:' "$R/$n.env" | cut -c8-100)"
  $C report --env "$R/$n.trace" >"$R/$n.envreport" 2>&1
  $C report --requests -e layer=ioctl "$R/$n.trace" >"$R/$n.ioctlreport" 2>&1
  DIRS="$DIRS $R/$n.trace"
done
echo
echo "== RM parameter blocks decoded by field, over all workloads"
python3 tests/gpu/ioctl_params_count.py --cutap "$C" $DIRS 2>&1 | tee "$R/params_count.txt" | head -40
echo
echo "== environment report excerpts"
for n in nccl_allreduce torch_conv_graph; do
  [ -d "$R/$n.trace" ] && { echo "-- $n"; $C report --env "$R/$n.trace" 2>&1 | head -25; }
done
for n in $ORDER; do grep -q PASS "$R/$n.env" || { echo "-- env_check $n"; tail -40 "$R/$n.env"; }; done
echo
echo "== mappings"
LIBCUDA=$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')
echo "libcuda: $LIBCUDA; imports: $(nm -D --undefined-only "$LIBCUDA" 2>/dev/null | awk '{print $2}' |
  grep -E '^(munmap|mremap|mmap|mmap64|syscall|madvise|mprotect)(@|$)' | tr '\n' ' ')"
command -v strace >/dev/null && strace -f -qq -e trace=munmap,mremap -o "$R/maps.strace" "$B/maps_probe" >/dev/null 2>&1 &&
  echo "strace: $(grep -c munmap "$R/maps.strace") munmap, $(grep -c mremap "$R/maps.strace") mremap (all memory)"
echo "-- bare"; cat "$R/maps_probe.bare.err"
echo "-- traced"; grep maps_probe "$R/maps_probe.trace.err"
$C dump "$R/maps_probe.trace" 2>/dev/null | grep -E ' (mmap|munmap|mremap|mmap_over)\(' >"$R/maps.dump"
echo "trace: $(grep -c ' mmap(' "$R/maps.dump") mmap, $(grep -c ' munmap(' "$R/maps.dump") munmap, $(grep -c ' mremap(' "$R/maps.dump") mremap, $(grep -c ' mmap_over(' "$R/maps.dump") mmap_over"
$C report --requests "$R/maps_probe.trace" 2>/dev/null | grep -E 'mmap|munmap|mremap' | sed 's/^ */report: /' | head -20
grep ' mmap_over(' "$R/maps.dump" | head -3 | cut -c1-250
head -12 "$R/maps.dump" | cut -c1-230
echo "-- how libcuda maps, bare (tests/gpu/maps_shim.c)"
for n in maps_probe torch_step; do
  rm -f "$R/$n.shim"
  MAPS_SHIM_OUT=$R/$n.shim LD_PRELOAD=$B/libmaps_shim.so timeout 300 ${CMD[$n]} >/dev/null 2>&1
  echo "$n: $(grep -c '^mmap.*/dev/nvidia' "$R/$n.shim") device mmaps; by libcuda: $(grep -c '^munmap.*\[libcuda\]' "$R/$n.shim") munmap ($(grep -c '^munmap.*DEVICE' "$R/$n.shim") of device memory), $(grep -c '^mremap.*\[libcuda\]' "$R/$n.shim") mremap ($(grep -c '^mremap.*DEVICE' "$R/$n.shim") device), $(grep -c 'OVER-DEVICE' "$R/$n.shim") MAP_FIXED mappings over device memory"
done
grep -E 'OVER-DEVICE|DEVICE' "$R/maps_probe.shim" | head -8
tar czf "$OUTDIR/issue32-results.tgz" --exclude="*.trace" -C "$R" . 2>/dev/null
echo "results: $OUTDIR/issue32-results.tgz"
