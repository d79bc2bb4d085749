#!/usr/bin/env bash
# Issue #31: cutap trace --gpu on the fake driver and the fake libcupti's
# activity API. t_gpu, 60 rounds x 4 threads: driver launches of named
# kernels (cuLaunchKernel, its _ptsz on a stream, cuLaunchKernelEx), a
# graph of 3 kernel nodes launched, copies of each direction (HtoD, DtoH,
# DtoD, async, host to host through cuMemcpy, peer), memsets (D8, D16, D32
# async, 2D), and a runtime copy's launch, copies, memset and graph launch.
# Every kernel, copy and memset is in the file as made (gpu_check.py
# --expect, an independent reading of the file: per kernel name, copies,
# memsets) and joined to the call that launched it (the runtime copy's to
# the runtime call, the graph's nodes to the graph launch); one CORR and
# one API record per launching call (19 driver, 5 runtime a round), none
# for cuCtxGetCurrent; copies by direction and kernels by grid and block
# as launched; GPU times inside the run in CLOCK_MONOTONIC; the header's
# gpu bits ASKED|STARTED|FLUSHED. The buffers came back when full (1.2 MB
# of records, 1 MiB buffers) and at exit (FlushAll). The output is the
# bare run's, every call recorded once.
. "$(dirname "$0")/../../lib/init.sh"

R=60 TH=4 N=$((60 * 4))
gpu_bare a $R $TH || exit 1
t0=$(mono_ns)
FAKE_CUPTI_LOG=$WORK/a.log gpu_run a $R $TH || { say "  cutap trace --gpu failed:"; tail -5 "$WORK/a.err" >&2; exit 1; }
t1=$(mono_ns)
gpu_same_output a && gpu_calls a || exit 1
python3 tests/gpu/gpu_check.py "$WORK/a" --expect "$(gpu_expect $N)" >"$WORK/a.check" \
    || { cat "$WORK/a.check" >&2; say "  gpu_check.py: not as made"; exit 1; }
gpu_sum a || exit 1
gpu_is a bits 'ASKED|STARTED|FLUSHED' && gpu_is a error 0 && gpu_is a dropped 0 && gpu_is a lost 0 || exit 1
recs=$((19 * N * 2 + 23 * N))
gpu_is a records $recs && gpu_is a header_records $recs || exit 1
gpu_is a kernel $((10 * N)) && gpu_is a memcpy $((8 * N)) && gpu_is a memset $((5 * N)) || exit 1
gpu_is a corr $((19 * N)) && gpu_is a api_driver $((14 * N)) && gpu_is a api_runtime $((5 * N)) && gpu_is a corr_dup 0 || exit 1
gpu_is a joined $((23 * N)) && gpu_is a unjoined 0 || exit 1
for f in cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuMemcpyHtoD_v2 cuMemcpyDtoH_v2 cuMemcpyDtoD_v2 \
         cuMemcpyHtoDAsync_v2 cuMemcpy cuMemcpyPeer cuMemsetD8_v2 cuMemsetD16_v2 cuMemsetD32Async cuMemsetD2D8_v2 \
         cudaLaunchKernel cudaMemcpy cudaMemcpyAsync cudaMemset; do
    gpu_is a by $f $N || exit 1
done
gpu_is a by cuGraphLaunch $((3 * N)) && gpu_is a by cudaGraphLaunch $((3 * N)) || exit 1
gpu_is a copy HtoD $((3 * N)) && gpu_is a copy DtoH $((2 * N)) && gpu_is a copy DtoD $N && gpu_is a copy HtoH $N \
    && gpu_is a copy PtoP $N || exit 1
diff <(grep '^shape ' "$WORK/a.sum") - >&2 <<EOT || { say "  kernels not as launched (grid, block)"; exit 1; }
shape _Z6gnodeaPf 4,1,1 32,1,1 $((2 * N))
shape _Z6gnodebPf 4,1,1 32,1,1 $((2 * N))
shape _Z6gnodecPf 4,1,1 32,1,1 $((2 * N))
shape _Z7add_onePi 16,1,1 64,1,1 $N
shape _Z7rt_axpyPfS_f 8,8,1 32,4,1 $N
shape _Z9scale_f32Pfi 32,2,1 256,1,1 $N
shape _Z9scale_f32Pfi 64,1,1 128,1,1 $N
EOT
tmin=$(gpu_val a tmin) tmax=$(gpu_val a tmax)
[ "$tmin" -gt "$t0" ] && [ "$tmax" -lt "$t1" ] && gpu_is a backwards 0 \
    || { say "  GPU times $tmin..$tmax not inside the run $t0..$t1 (CLOCK_MONOTONIC)"; exit 1; }
# (the full one on the fake's thread, or at exit when that thread was
# slower: gpu_killed_before_flush waits for it; the last at exit, unless a
# period's flush, every 500 ms, took it)
grep -q '^deliver full records [0-9]* on \(fake\|caller\)$' "$WORK/a.log" \
    && { grep -q '^deliver period' "$WORK/a.log" || tail -1 "$WORK/a.log" | grep -q '^deliver flush records [0-9]* on caller$'; } \
    || { say "  buffers not handed back when full and at exit:"; cat "$WORK/a.log" >&2; exit 1; }
