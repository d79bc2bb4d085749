#!/usr/bin/env bash
# No libcupti: a clear message, and the run as without the option. A
# library without CUPTI's functions likewise. CUTAP_CUPTI_LIB names the
# one library tried; by absolute path it works without LD_LIBRARY_PATH.
. "$(dirname "$0")/../../lib/init.sh"

mkdir -p "$WORK/nocupti" && ln -sf "$B/fake/libcuda.so.1" "$WORK/nocupti/libcuda.so.1"
CUTAP_CUPTI_LIB=/nonexistent/libcupti.so.13 LD_LIBRARY_PATH=$WORK/nocupti srt_run cm --runtime=cupti || exit 1
grep -q -- '--runtime=cupti: libcupti not found (CUTAP_CUPTI_LIB=/nonexistent/libcupti.so.13: .*); runtime calls are not recorded' \
    "$WORK/cm.err" || { cat "$WORK/cm.err" >&2; exit 1; }
srt_same_output cm && srt_recorded cm 0 || exit 1
CUTAP_CUPTI_LIB=$B/fake/libcuda.so.1 srt_run cm2 --runtime=cupti || exit 1
grep -q -- '--runtime=cupti: .*libcuda.so.1 lacks cuptiSubscribe' "$WORK/cm2.err" || { cat "$WORK/cm2.err" >&2; exit 1; }
srt_same_output cm2 && srt_recorded cm2 0 || exit 1
CUTAP_CUPTI_LIB=$B/fake/libcupti.so.13 LD_LIBRARY_PATH=$WORK/nocupti srt_run cm3 --runtime=cupti || exit 1
srt_recorded cm3 1 && grep -q '^RTCALL cudaMalloc' "$WORK/cm3.err"
