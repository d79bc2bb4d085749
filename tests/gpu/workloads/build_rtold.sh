#!/usr/bin/env bash
# Builds build/rtold/ on the development machine (no GPU needed): the
# programs rt118_static.c and rtold_typed.c (rt118t_*, rt124t_*: issue #28)
# linked with CUDA 11.8's and 12.4's runtimes, each
# statically and against its shared libcudart (copied beside the programs,
# found through an $ORIGIN rpath). Carry build/rtold to the device machine
# (about 3.2 MiB): tests/gpu/runtime_coverage.sh runs them as rt118_static,
# rt118_shared, rt124_static and rt124_shared.
#   CUDA 11.8: Debian bookworm non-free nvidia-cuda-dev (installed)
#   CUDA 12.4: trixie non-free nvidia-cuda-dev 12.4.127~12.4.1-2 and
#              libcudart12, unpacked with dpkg-deb -x into $RT124 (default
#              /tmp/trixie/x), never installed
set -eu
cd "$(dirname "$0")/../../.."
S=tests/gpu/workloads/rt118_static.c O=build/rtold
L118=/usr/lib/x86_64-linux-gnu X=${RT124:-/tmp/trixie/x}/usr
mkdir -p $O
gcc -O2 $S -o $O/rt118_static $L118/libcudart_static.a -ldl -lpthread -lrt
cp -L $L118/libcudart.so.11.0 $O/
gcc -O2 $S -o $O/rt118_shared $O/libcudart.so.11.0 -Wl,-rpath,'$ORIGIN'
gcc -O2 -I$X/include $S -o $O/rt124_static $X/lib/x86_64-linux-gnu/libcudart_static.a -ldl -lpthread -lrt
cp -L $X/lib/x86_64-linux-gnu/libcudart.so.12 $O/
gcc -O2 -I$X/include $S -o $O/rt124_shared $O/libcudart.so.12 -Wl,-rpath,'$ORIGIN'
# issue #28: the functions whose signature changed since (rtold_typed.c)
T=tests/gpu/workloads/rtold_typed.c
gcc -O2 $T -o $O/rt118t_static $L118/libcudart_static.a -ldl -lpthread -lrt
gcc -O2 $T -o $O/rt118t_shared $O/libcudart.so.11.0 -Wl,-rpath,'$ORIGIN'
gcc -O2 -I$X/include $T -o $O/rt124t_static $X/lib/x86_64-linux-gnu/libcudart_static.a -ldl -lpthread -lrt
gcc -O2 -I$X/include $T -o $O/rt124t_shared $O/libcudart.so.12 -Wl,-rpath,'$ORIGIN'
ls $O
