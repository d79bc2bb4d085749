#!/usr/bin/env bash
# Builds build/oldcupti/ on the development machine (no GPU needed) for
# tests/gpu/older_cupti.sh (issue #31): gpu_activity.cu compiled by CUDA
# 11.8's nvcc, linked with 11.8's runtime statically (ga118_static) and
# shared (ga118_shared), and with 12.4's shared runtime (ga124_shared:
# 11.8's compiled object, whose calls 12.4's libcudart.so.12 exports with
# the same arguments; cudaGraphInstantiate's fourth and fifth are ignored),
# beside CUPTI 11.8's and 12.4's libraries and the runtimes, found through
# an $ORIGIN rpath. About 16 MiB: carry build/oldcupti.
#   CUDA 11.8: Debian bookworm non-free nvidia-cuda-toolkit, nvidia-cuda-dev
#              and libcupti11.8 (installed; nvcc needs -ccbin clang-14)
#   CUDA 12.4: trixie non-free libcudart12 and libcupti12
#              12.4.127~12.4.1-2, unpacked with dpkg-deb -x into $RT124
#              (default /tmp/trx/c12), never installed
set -eu
cd "$(dirname "$0")/../../.."
S=tests/gpu/workloads/gpu_activity.cu O=build/oldcupti
L118=/usr/lib/x86_64-linux-gnu L124=${RT124:-/tmp/trx/c12}/usr/lib/x86_64-linux-gnu
NVCC="/usr/bin/nvcc -ccbin clang-14 -arch=sm_90 -O2"
mkdir -p $O
$NVCC $S -o $O/ga118_static -lcuda
cp -L $L118/libcudart.so.11.0 $L118/libcupti.so.11.8 $L124/libcudart.so.12 $L124/libcupti.so.12 $O/
$NVCC -cudart shared $S -o $O/ga118_shared -lcuda -Xlinker -rpath -Xlinker '$ORIGIN'
$NVCC -cudart none -c $S -o $O/ga.o
clang-14 $O/ga.o -o $O/ga124_shared $O/libcudart.so.12 -lcuda -lstdc++ -Wl,-rpath,'$ORIGIN'
rm $O/ga.o
ls -la $O
