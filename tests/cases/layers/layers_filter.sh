#!/usr/bin/env bash
# -e layer=NAME takes every layer's name, in any case; the driver calls
# a runtime call makes are left out with it when only runtime is kept.
. "$(dirname "$0")/../../lib/init.sh"

recorded_equal lf0 $T/t_layers || exit 1
layers_trace lf1 -e layer=runtime || exit 1
called "$WORK/lf1.out" | grep '^cuda' >"$WORK/lf1.called"
report_names "$WORK/lf1" >"$WORK/lf1.seen" && same_counts "$WORK/lf1.called" "$WORK/lf1.seen" || exit 1
layers_trace lf2 -e 'layer=CUBLAS,layer=nccl' || exit 1
called "$WORK/lf2.out" | grep -e '^cublas' -e '^nccl' >"$WORK/lf2.called"
report_names "$WORK/lf2" >"$WORK/lf2.seen" && same_counts "$WORK/lf2.called" "$WORK/lf2.seen" || exit 1
layers_trace lf3 -e '!layer=Runtime' || exit 1
called "$WORK/lf3.out" | grep -v '^cuda' >"$WORK/lf3.called"
report_names "$WORK/lf3" >"$WORK/lf3.seen" && same_counts "$WORK/lf3.called" "$WORK/lf3.seen" || exit 1
# a name that is no layer: refused with the list of names
"$CUTAP" trace -o "$WORK/lf4" -e 'layer=cudart' -- true 2>"$WORK/lf4.err"; [ $? = 2 ] || exit 1
grep -q 'layer= takes driver, hidden, runtime, cublas, cublasLt, cudnn, nccl, cufft, curand, cusparse, cusolver, nvrtc, nvJitLink, nvtx' \
    "$WORK/lf4.err" || { cat "$WORK/lf4.err" >&2; exit 1; }
"$CUTAP" --help | grep -q 'LAYER: driver, hidden'
