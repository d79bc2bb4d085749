#!/usr/bin/env bash
# Issue #31: cutap trace --gpu on the fake driver and the fake libcupti's
# activity API. t_gpu, 100 rounds x 4 threads: driver launches of named
# kernels (cuLaunchKernel, its _ptsz on a stream, cuLaunchKernelEx), a
# graph of 3 kernel nodes launched, copies of each direction (HtoD, DtoH,
# DtoD, async, host to host through cuMemcpy, peer), memsets (D8, D16, D32
# async, 2D), and a runtime copy's launch, copies, memset and graph launch.
# Every kernel, copy and memset is in the file as made (gpu_check.py
# --expect, an independent reading of the file: per kernel name, copies,
# memsets) and joined to the call that launched it (the runtime copy's to
# the runtime call, the graph's nodes to the graph launch); one
# correlation pair per launching call (14 driver, 5 runtime a round), none
# for cuCtxGetCurrent: by default written by the calling threads from
# CUPTI's callbacks (GPU_CORR meta records, no API record: header bit
# CALLBACKS), with CUTAP_GPU_DIAG=push from CUPTI's external ids (one CORR
# and one API record a call: PUSHED); copies by direction and kernels by
# grid and block as launched; GPU times inside the run in CLOCK_MONOTONIC;
# the header's gpu bits ASKED|STARTED|FLUSHED. The buffers came back when
# full (1.3 MB of activity records alone, 1 MiB buffers) and at exit
# (FlushAll). The output is the bare run's, every call recorded once.
. "$(dirname "$0")/../../lib/init.sh"

R=100 TH=4 N=$((100 * 4))
gpu_bare a $R $TH || exit 1
for m in cb push; do
if [ $m = push ]; then export CUTAP_GPU_DIAG=push; else unset CUTAP_GPU_DIAG; fi
rm -f "$WORK/$m.log"
t0=$(mono_ns)
FAKE_CUPTI_LOG=$WORK/$m.log gpu_run $m $R $TH || { say "  $m: cutap trace --gpu failed:"; tail -5 "$WORK/$m.err" >&2; exit 1; }
t1=$(mono_ns)
cp "$WORK/a.bare" "$WORK/$m.bare"
gpu_same_output $m && gpu_calls $m || exit 1
python3 tests/gpu/gpu_check.py "$WORK/$m" --expect "$(gpu_expect $N)" >"$WORK/$m.check" \
    || { cat "$WORK/$m.check" >&2; say "  $m: gpu_check.py: not as made"; exit 1; }
gpu_sum $m || exit 1
if [ $m = cb ]; then
    gpu_is $m bits 'ASKED|STARTED|FLUSHED|CALLBACKS' && gpu_is $m corr_cb $((19 * N)) && gpu_is $m api 0 || exit 1
    recs=$((23 * N))
else
    gpu_is $m bits 'ASKED|STARTED|FLUSHED|PUSHED' && gpu_is $m corr_gpu $((19 * N)) && gpu_is $m api_driver $((14 * N)) \
        && gpu_is $m api_runtime $((5 * N)) || exit 1
    recs=$((19 * N * 2 + 23 * N))
fi
gpu_is $m error 0 && gpu_is $m dropped 0 && gpu_is $m lost 0 || exit 1
gpu_is $m records $recs && gpu_is $m header_records $recs || exit 1
gpu_is $m kernel $((10 * N)) && gpu_is $m memcpy $((8 * N)) && gpu_is $m memset $((5 * N)) || exit 1
gpu_is $m corr $((19 * N)) && gpu_is $m corr_dup 0 || exit 1
gpu_is $m joined $((23 * N)) && gpu_is $m unjoined 0 || exit 1
for f in cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuMemcpyHtoD_v2 cuMemcpyDtoH_v2 cuMemcpyDtoD_v2 \
         cuMemcpyHtoDAsync_v2 cuMemcpy cuMemcpyPeer cuMemsetD8_v2 cuMemsetD16_v2 cuMemsetD32Async cuMemsetD2D8_v2 \
         cudaLaunchKernel cudaMemcpy cudaMemcpyAsync cudaMemset; do
    gpu_is $m by $f $N || exit 1
done
gpu_is $m by cuGraphLaunch $((3 * N)) && gpu_is $m by cudaGraphLaunch $((3 * N)) || exit 1
gpu_is $m copy HtoD $((3 * N)) && gpu_is $m copy DtoH $((2 * N)) && gpu_is $m copy DtoD $N && gpu_is $m copy HtoH $N \
    && gpu_is $m copy PtoP $N || exit 1
diff <(grep '^shape ' "$WORK/$m.sum") - >&2 <<EOT || { say "  $m: kernels not as launched (grid, block)"; exit 1; }
shape _Z6gnodeaPf 4,1,1 32,1,1 $((2 * N))
shape _Z6gnodebPf 4,1,1 32,1,1 $((2 * N))
shape _Z6gnodecPf 4,1,1 32,1,1 $((2 * N))
shape _Z7add_onePi 16,1,1 64,1,1 $N
shape _Z7rt_axpyPfS_f 8,8,1 32,4,1 $N
shape _Z9scale_f32Pfi 32,2,1 256,1,1 $N
shape _Z9scale_f32Pfi 64,1,1 128,1,1 $N
EOT
tmin=$(gpu_val $m tmin) tmax=$(gpu_val $m tmax)
[ "$tmin" -gt "$t0" ] && [ "$tmax" -lt "$t1" ] && gpu_is $m backwards 0 \
    || { say "  $m: GPU times $tmin..$tmax not inside the run $t0..$t1 (CLOCK_MONOTONIC)"; exit 1; }
# (the full one on the fake's thread, or at exit when that thread was
# slower: gpu_killed_before_flush waits for it; the last at exit, unless a
# period's flush, every 500 ms, took it)
grep -q '^deliver full records [0-9]* on \(fake\|caller\)$' "$WORK/$m.log" \
    && { grep -q '^deliver period' "$WORK/$m.log" || tail -1 "$WORK/$m.log" | grep -q '^deliver flush records [0-9]* on caller$'; } \
    || { say "  $m: buffers not handed back when full and at exit:"; cat "$WORK/$m.log" >&2; exit 1; }
done
