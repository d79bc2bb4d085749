#!/usr/bin/env bash
# Overhead on a real GPU, side by side in one run (device machine only):
#   bench/gpu/run.sh [CYCLES]
# 1. build/gpu/overhead: ns per cuCtxGetCurrent and per empty kernel launch,
#    bare / libcutap.so with no client / cutap stat / cutap trace / CUPTI;
#    with BENCH_GPU_OVERHEAD=1 also trace --gpu and its parts, the GPU
#    activity referee bare and with every API record (issue #31); with
#    BENCH_NSYS=1 also each call under `nsys profile -t cuda`.
# 2. PyTorch training steps per second (bench/gpu/torch_steps.py), bare,
#    under `cutap trace`, under `cutap stat`, under a bare CUPTI callback
#    subscriber (driver and runtime domains: tests/gpu/cupti_ref.c through
#    CUDA_INJECTION64_PATH) and, with BENCH_NSYS=1, under `nsys profile -t
#    cuda` where an nsys binary is found (about 3 minutes a run there), in turn, CYCLES times (default 6), each process
#    pinned to the same 8 cores; the median over cycles of each process's
#    fastest window, the spread (min..max), and the change against bare;
#    then the same, bare, trace and stat, for a GPU-bound MLP (width 2048,
#    batch 1024).
#    BENCH_GPU_MODES picks the GPU-bound table's modes (as BENCH_MODES);
#    BENCH_GPU_ONLY=1 skips the CPU-bound table.
#    BENCH_CPU_ONLY=1 stops after the CPU-bound table (more cycles of it in
#    one call's time); BENCH_GPU_ARGS the GPU-bound step's STEPS WIDTH
#    BATCH (default 60 2048 1024); BENCH_NO_STARTUP=1 skips part 3.
#    BENCH_TRACE0=1 adds trace0: cutap trace with CUTAP_PREFAULT=0 (trace
#    pages populated on the calling thread, as before issue #13's helper).
#    BENCH_MODES picks the modes of that table, among bare trace stat cupti
#    tracecupti tracesym tsame trace0 tring (cutap trace --ring 4M: the
#    records in 4 MiB reused after the first lap) tring64 (--ring 64M),
#    pass (libcutap.so preloaded, no client), statsym (stat
#    --runtime=symbols: no runtime reports asked for), statdrv (stat -e
#    layer=driver: only the driver's calls counted), tgpu (cutap trace
#    --gpu: GPU activity too, issue #31), tparams (trace --ioctl-params:
#    RM parameter blocks too, issue #32), gpuref (tests/gpu/gpu_ref.c, a
#    bare CUPTI activity client: kernels, copies, memsets), tgpunopush and
#    tgpunoapi, tgpunots (trace --gpu without its external ids pushed,
#    without API records asked for, on CUPTI's own clock: CUTAP_GPU_DIAG),
#    tgpuallapi (API records asked for by kind, those of other functions
#    dropped: CUTAP_GPU_DIAG=allapi), tgpupush (joined through external
#    ids, not CUPTI's callbacks: CUTAP_GPU_DIAG=push), tgpunoflush (no periodic flush:
#    CUTAP_GPU_FLUSH_MS=0), gpurefapi and gpurefall (the
#    referee with API records of the two launch functions, of every call).
# 3. Start-up: `import torch; torch.zeros(1, device="cuda")`, wall time
#    bare and under cutap trace, CYCLES times each, medians.
set -u
cd "$(dirname "$0")/../.."
B=build/gpu
CYC=${1:-6}
[ -x $B/overhead ] && [ -f $B/libcupti_ref.so ] && [ -x build/cutap ] || tests/gpu/build.sh || exit 1
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
NSYS=${BENCH_NSYS:+$(ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys /usr/local/cuda/bin/nsys 2>/dev/null | head -1)}
[ -n "${SKIP_OVERHEAD:-}" ] || LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  env ${BENCH_GPU_OVERHEAD:+CUTAP_GPUREF_LIB=$PWD/$B/libgpu_ref.so} ${NSYS:+CUTAP_NSYS=$NSYS} \
  CUTAP_LIBRARY=$PWD/build/libcutap.so CUTAP_REF_LIB=$PWD/$B/libcupti_ref.so $B/overhead "$CYC" || BAD=1
echo
T=$(mktemp -d /tmp/cutap-bench.XXXXXX)
declare -A V
PIN="taskset -c ${BENCH_PIN:-4-11}"
$PIN true 2>/dev/null || PIN=
REF=$PWD/$B/libcupti_ref.so
rate() { grep -o 'steps_per_s [0-9.]*' | awk '{print $2}' | tail -1; }
run_mode() {   # MODE CYCLE ARGS...: one process, its steps/s
  local m=$1 c=$2; shift 2
  case $m in
    bare) timeout 200 $PIN python3 bench/gpu/torch_steps.py "$@" ;;
    trace) timeout 200 $PIN build/cutap trace -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tracecupti) timeout 200 $PIN build/cutap trace --runtime=cupti -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tracesym) timeout 200 $PIN build/cutap trace --runtime=symbols -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tsame) CUTAP_PAGES=same timeout 200 $PIN build/cutap trace -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tring) timeout 200 $PIN build/cutap trace --ring 4M -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tring64) timeout 200 $PIN build/cutap trace --ring 64M -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    trace0) CUTAP_PREFAULT=0 timeout 200 $PIN build/cutap trace -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    stat) timeout 200 $PIN build/cutap stat -o "$T/$m$c.$#.txt" -- python3 bench/gpu/torch_steps.py "$@" ;;
    pass) LD_PRELOAD=$PWD/build/libcutap.so timeout 200 $PIN python3 bench/gpu/torch_steps.py "$@" ;;
    statsym) timeout 200 $PIN build/cutap stat --runtime=symbols -o "$T/$m$c.$#.txt" -- python3 bench/gpu/torch_steps.py "$@" ;;
    statdrv) timeout 200 $PIN build/cutap stat -e layer=driver -o "$T/$m$c.$#.txt" -- python3 bench/gpu/torch_steps.py "$@" ;;
    cupti) mkdir -p "$T/ref$c"; CUDA_INJECTION64_PATH=$REF CUTAP_REF_MARK=$T/ref$c timeout 200 $PIN python3 bench/gpu/torch_steps.py "$@" ;;
    tparams) timeout 200 $PIN build/cutap trace --ioctl-params -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tgpu) timeout 200 $PIN build/cutap trace --gpu -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tgpunoflush) CUTAP_GPU_FLUSH_MS=0 timeout 200 $PIN build/cutap trace --gpu -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    tgpunopush|tgpunoapi|tgpunots|tgpuallapi|tgpupush) CUTAP_GPU_DIAG=${m#tgpu} timeout 200 $PIN build/cutap trace --gpu -o "$T/$m$c.$#" -- python3 bench/gpu/torch_steps.py "$@" 2>/dev/null ;;
    gpurefapi|gpurefall) mkdir -p "$T/g$c"; GPU_REF_API=$([ $m = gpurefapi ] && echo launch || echo all) CUDA_INJECTION64_PATH=$PWD/$B/libgpu_ref.so GPU_REF_DIR=$T/g$c timeout 200 $PIN python3 bench/gpu/torch_steps.py "$@" ;;
    gpuref) mkdir -p "$T/g$c"; CUDA_INJECTION64_PATH=$PWD/$B/libgpu_ref.so GPU_REF_DIR=$T/g$c timeout 200 $PIN python3 bench/gpu/torch_steps.py "$@" ;;
    # nsys turns its capture into a report after the program ends (minutes
    # on that host, where the import fails): the rate is read once the
    # program printed it, and nsys's process group is killed then.
    nsys) local o=$T/n$c.$#.out p
      setsid timeout 150 $PIN "$NSYS" profile -t cuda -o "$T/n$c.$#" python3 bench/gpu/torch_steps.py "$@" >"$o" 2>/dev/null &
      p=$!
      while kill -0 $p 2>/dev/null && ! grep -q steps_per_s "$o"; do sleep 0.5; done
      kill -KILL -- -$p 2>/dev/null; wait $p 2>/dev/null
      # what nsys started outside its group (its daemon, the importer) must
      # not run on into the next mode's window
      pkill -KILL -f "$NSYS" 2>/dev/null; pkill -KILL -f QdstrmImporter 2>/dev/null; sleep 2; cat "$o" ;;
  esac | rate
}
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mm() { tr ' ' '\n' | grep . | sort -g | awk 'NR==1{a=$1} {b=$1} END {printf "%s..%s", a, b}'; }
table() {   # TITLE MODES...: the table of V
  local title=$1; shift
  local b; b=$(echo ${V[bare]} | med)
  echo "$title (median of $CYC processes' fastest windows, spread min..max)"
  for m in "$@"; do
    [ "$(echo ${V[$m]} | wc -w)" = "$CYC" ] || { echo "  $m: failed in some cycles (${V[$m]})"; BAD=1; continue; }
    v=$(echo ${V[$m]} | med)
    awk -v m=$m -v v="$v" -v b="$b" -v s="$(echo ${V[$m]} | mm)" \
      'BEGIN {printf "  %-6s %9.1f steps/s  %+6.2f %%   (%s)\n", m, v, (v - b) / b * 100, s}'
  done
}
MODES="bare trace stat cupti"
# trace0: trace with the pages populated on the calling thread (CUTAP_PREFAULT=0)
[ -n "${BENCH_TRACE0:-}" ] && MODES="bare trace trace0 stat cupti"
# tracecupti: cutap trace --runtime=cupti (issue #14: the runtime copies through CUPTI);
# tracesym: --runtime=symbols (the shared libcudart only, the default before issue #25);
# tsame: trace with the page helper on the program's cores (CUTAP_PAGES=same, before issue #27);
# BENCH_PIN: the cores (taskset -c; default 4-11)
[ -n "${BENCH_MODES:-}" ] && MODES=$BENCH_MODES
[ -n "$NSYS" ] && MODES+=" nsys"
if [ -z "${BENCH_GPU_ONLY:-}" ]; then   # BENCH_GPU_ONLY=1: the GPU-bound table alone
for c in $(seq "$CYC"); do
  for m in $MODES; do V[$m]+=" $(run_mode $m $c)"; echo "  cycle $c $m: ${V[$m]##* } ($(date +%T))" >&2; done
done
case " $MODES " in *" cupti "*) [ -n "$(ls "$T"/ref1/injected.* 2>/dev/null)" ] || { echo "cupti: the subscriber was not loaded"; BAD=1; } ;; esac
table "PyTorch CPU-bound MLP steps/s" $MODES
[ -n "$NSYS" ] || echo "  (no nsys row: BENCH_NSYS=1 not set, or no nsys binary)"
if [ -d "$T/trace1.0" ]; then   # (a trace mode among the modes)
  calls=$(build/cutap report --format csv "$T/trace1.0" | awk -F, 'NR>1 {s+=$3} END {print s}')
  echo "  calls recorded in one traced run (2,200 steps + start-up): $calls; the most frequent:"
  build/cutap report --format csv "$T/trace1.0" | awk -F, 'NR>1 {print $3, $1, $2, $6}' | sort -rn | head -8 |
    awk '{printf "    %8d %-7s %-34s avg %s ns\n", $1, $2, $3, $4}'
fi
fi
[ -n "${BENCH_CPU_ONLY:-}" ] && { rm -rf "$T"; [ -z "${BAD:-}" ] || exit 1; exit 0; }
V=()
# BENCH_GPU_MODES: the modes of the GPU-bound table (default bare trace stat; nsys added as above)
GMODES=${BENCH_GPU_MODES:-bare trace stat}
[ -n "$NSYS" ] && GMODES+=" nsys"
# BENCH_GPU_ARGS: torch_steps.py's STEPS WIDTH BATCH for it (default 60 2048
# 1024: only just GPU-bound, its CPU-bound twin runs 800-900 steps/s bare;
# "20 4096 2048": the GPU's time a step 8 times as much)
GARGS=${BENCH_GPU_ARGS:-60 2048 1024}
for c in $(seq "$CYC"); do
  for m in $GMODES; do V[$m]+=" $(run_mode $m $c $GARGS)"; echo "  cycle $c $m: ${V[$m]##* } ($(date +%T))" >&2; done
done
set -- $GARGS
table "GPU-bound MLP (width $2, batch $3) steps/s" $GMODES
V=()
# BENCH_NO_STARTUP=1: no start-up table
[ -n "${BENCH_NO_STARTUP:-}" ] && { rm -rf "$T"; [ -z "${BAD:-}" ] || exit 1; exit 0; }
st() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
Z='import torch; torch.zeros(1, device="cuda")'
for c in $(seq "$CYC"); do
  V[bare]+=" $(st $PIN python3 -c "$Z")"
  V[trace]+=" $(st $PIN build/cutap trace -o "$T/z$c" -- python3 -c "$Z")"
done
b=$(echo ${V[bare]} | med); t=$(echo ${V[trace]} | med)
awk -v b="$b" -v t="$t" -v sb="$(echo ${V[bare]} | mm)" -v stt="$(echo ${V[trace]} | mm)" \
  'BEGIN {printf "Start-up (import torch; zeros on the GPU), median ms: bare %d (%s), trace %d (%s): %+.1f %%\n", b, sb, t, stt, (t - b) / b * 100}'
rm -rf "$T"
[ -z "${BAD:-}" ] || { echo "bench/gpu: FAILED (see above)"; exit 1; }
