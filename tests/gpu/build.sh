#!/usr/bin/env bash
# Builds what the GPU scripts need on the device machine, into build/gpu:
# libcutap.so and the cutap command, the CUPTI referees (libcupti_ref.so; libgpu_ref.so: GPU activity), the workloads and bench/gpu/overhead.
# Prints one line per thing that could not be built; exits 1 only when
# cutap itself cannot be built.
# GPU_BUILD_ONLY="overhead startup ...": only these (into GPU_BUILD_DIR,
# default build/gpu), not cutap (tests/cases/meta/gpu_build_host.sh builds
# the programs that need no CUDA this way, in CI).
cd "$(dirname "$0")/../.."
B=${GPU_BUILD_DIR:-build/gpu} W=tests/gpu/workloads
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$B"
LOG=$B/build.log
: >"$LOG"
if [ -z "${GPU_BUILD_ONLY:-}" ]; then
  # A warm device machine keeps the build outputs between calls, and the
  # sources arrive with their own (older) times: make alone would keep
  # stale objects (seen: a changed source, an old libcutap_core.so). So
  # everything is rebuilt whenever the sources' contents changed.
  src=$(find Makefile tests/tests.mk bench/bench.mk src cli include -type f 2>/dev/null | LC_ALL=C sort |
        xargs cat 2>/dev/null | sha1sum | cut -d' ' -f1)
  if [ "$(cat build/.src-stamp 2>/dev/null)" != "$src" ]; then
    make -s -B -j"$(nproc)" lib cli >>"$LOG" 2>&1 || { echo "cutap: build failed"; tail -20 "$LOG"; exit 1; }
    mkdir -p build && echo "$src" >build/.src-stamp
  fi
  make -s lib >>"$LOG" 2>&1 || { echo "libcutap.so: build failed"; tail -20 "$LOG"; exit 1; }
  make -s cli >>"$LOG" 2>&1 || { echo "cutap: build failed"; tail -20 "$LOG"; exit 1; }
fi

# Where CUPTI and NCCL are: the toolkit, or the Python wheels PyTorch uses.
PYNV=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]) + "/nvidia")' 2>/dev/null)
first() { for d in "$@"; do [ -e "$d" ] && { echo "${d%/*}"; return; }; done; }
CUPTI_INC=$(first /usr/local/cuda/include/cupti.h /usr/local/cuda/extras/CUPTI/include/cupti.h "$PYNV"/cuda_cupti/include/cupti.h)
CUPTI_LIB=$(first /usr/local/cuda/lib64/libcupti.so /usr/local/cuda/extras/CUPTI/lib64/libcupti.so "$PYNV"/cuda_cupti/lib/libcupti.so.13)
NCCL_INC=$(first /usr/local/cuda/include/nccl.h "$PYNV"/nccl/include/nccl.h)
NCCL_LIB=$(first /usr/local/cuda/lib64/libnccl.so.2 "$PYNV"/nccl/lib/libnccl.so.2)
echo "cupti: ${CUPTI_INC:-?} ${CUPTI_LIB:-?}; nccl: ${NCCL_INC:-?} ${NCCL_LIB:-?}" >>"$LOG"
lib() { ls "$1"/$2* 2>/dev/null | head -1; }   # a library by path (no .so link in wheels)
try() {   # in parallel; a failure prints the end of its log and leaves no stale target
  local what=$1; shift
  [ -z "${GPU_BUILD_ONLY:-}" ] || [[ " $GPU_BUILD_ONLY " == *" $what "* ]] || return 0
  rm -f "$B/$what"
  ( "$@" >"$B/build.$what.log" 2>&1 || { echo "$what: build failed:"; tail -4 "$B/build.$what.log"; } ) &
}
try libcupti_ref.so gcc -O2 -shared -fPIC -I"$CUPTI_INC" tests/gpu/cupti_ref.c -o $B/libcupti_ref.so \
  "$(lib "$CUPTI_LIB" libcupti.so)" -Wl,-rpath,"$CUPTI_LIB" -lpthread
try libgpu_ref.so gcc -O2 -shared -fPIC -I"$CUPTI_INC" tests/gpu/gpu_ref.c -o $B/libgpu_ref.so \
  "$(lib "$CUPTI_LIB" libcupti.so)" -Wl,-rpath,"$CUPTI_LIB" -lpthread
try gpu_activity_static nvcc -O2 -arch=sm_90 $W/gpu_activity.cu -o $B/gpu_activity_static -lcuda
try gpu_activity_shared nvcc -O2 -arch=sm_90 -cudart shared $W/gpu_activity.cu -o $B/gpu_activity_shared -lcuda
try overhead gcc -O2 -Iinclude -Isrc/common -Isrc/front -o $B/overhead bench/gpu/overhead.c -ldl
try abcall gcc -O2 -Iinclude -Isrc/common -Isrc/front -o $B/abcall bench/gpu/abcall.c -ldl -lm
try procaddr_check gcc -O2 -o $B/procaddr_check tests/gpu/procaddr_check.c -ldl
try vecadd_static nvcc -O2 -arch=sm_90 $W/vecadd.cu -o $B/vecadd_static
try vecadd_shared nvcc -O2 -arch=sm_90 -cudart shared $W/vecadd.cu -o $B/vecadd_shared
try driverapi gcc -O2 -I/usr/local/cuda/include $W/driverapi.c -o $B/driverapi -L/usr/local/cuda/lib64/stubs -lcuda
try ptds nvcc -O2 -arch=sm_90 --default-stream per-thread $W/ptds.cu -o $B/ptds
try cublas_gemm nvcc -O2 -arch=sm_90 $W/cublas_gemm.cu -lcublas -o $B/cublas_gemm
try rtcall_static nvcc -O2 -arch=sm_90 bench/gpu/rtcall.cu -o $B/rtcall_static -ldl
try rtcall_shared nvcc -O2 -arch=sm_90 -cudart shared bench/gpu/rtcall.cu -o $B/rtcall_shared
try rtlaunch nvcc -O2 -arch=sm_90 bench/gpu/rtlaunch.cu -o $B/rtlaunch
try entrypoint nvcc -O2 -arch=sm_90 $W/entrypoint.cu -o $B/entrypoint
try daemon gcc -O2 -I/usr/local/cuda/include $W/daemon.c -o $B/daemon -L/usr/local/cuda/lib64/stubs -lcuda
mkdir -p build/bench
mkdir -p build/bench
try startup gcc -O2 -Iinclude -Isrc/common -Isrc/front -o ${GPU_BUILD_DIR:-build/bench}/startup bench/startup.c
try nccl_allreduce nvcc -O2 -arch=sm_90 ${NCCL_INC:+-I"$NCCL_INC"} $W/nccl_allreduce.cu -o $B/nccl_allreduce \
  -L"$NCCL_LIB" -l:libnccl.so.2 -Xlinker -rpath -Xlinker "$NCCL_LIB"
try hang_rank nvcc -O2 -arch=sm_90 -cudart shared ${NCCL_INC:+-I"$NCCL_INC"} $W/hang_rank.cu -o $B/hang_rank \
  -L"$NCCL_LIB" -l:libnccl.so.2 -Xlinker -rpath -Xlinker "$NCCL_LIB"
wait
exit 0
