#!/usr/bin/env bash
# The device machine's build script (tests/gpu/build.sh) still builds the
# programs that need no CUDA: bench/gpu/overhead, bench/gpu/abcall, bench/startup and
# tests/gpu/procaddr_check, with the include folders of today's layout (a
# header move once broke the GPU benchmarks, found only on the device).
. "$(dirname "$0")/../../lib/init.sh"

GPU_BUILD_ONLY="overhead abcall startup procaddr_check" GPU_BUILD_DIR="$WORK/gpu" tests/gpu/build.sh >"$WORK/out" 2>&1
[ ! -s "$WORK/out" ] || { cat "$WORK/out" >&2; exit 1; }
for f in overhead abcall startup procaddr_check; do
    [ -x "$WORK/gpu/$f" ] || { say "  $f not built"; cat "$WORK/gpu/build.$f.log" >&2; exit 1; }
done
