#!/usr/bin/env bash
# Issue #31: --gpu where CUPTI's activity API cannot be had: a CUPTI whose
# activity functions fail (FAKE_CUPTI_NO_ACTIVITY=1:
# CUPTI_ERROR_NOT_SUPPORTED), a library without them (CUTAP_CUPTI_LIB
# names the fake driver), no libcupti at all. Each time cutap trace's
# summary says "--gpu: WHY; GPU activity is not recorded", the header has
# the ASKED and FAILED bits (nothing started), gpu_why (and gpu_error: 27 where CUPTI answered),
# no GPU record is written, and the program runs as bare: same output,
# every call recorded once.
. "$(dirname "$0")/../../lib/init.sh"

gpu_bare c 3 2 || exit 1
check() {   # NAME WHY ERROR (WHY ending in "...": its beginning)
    local n=$1 why=${2%...} rest='; GPU activity is not recorded'
    [ "$why" = "$2" ] || rest=
    [ -s "$WORK/$n.out" ] && cp "$WORK/c.bare" "$WORK/$n.bare" && gpu_same_output $n && gpu_calls $n && gpu_sum $n || return 1
    grep -qF -- "--gpu: $why$rest" "$WORK/$n.err" && grep -q -- '--gpu: .*; GPU activity is not recorded$' "$WORK/$n.err" \
        || { say "  $n: the summary does not say '--gpu: $2; GPU activity is not recorded':"; cat "$WORK/$n.err" >&2; return 1; }
    gpu_is $n bits 'ASKED|FAILED' && gpu_is $n error $3 && gpu_is $n records 0 && gpu_is $n header_records 0 || return 1
    grep -q "^why $why" "$WORK/$n.sum" || { say "  $n: gpu_why is not '$2':"; grep '^why' "$WORK/$n.sum" >&2; return 1; }
}
FAKE_CUPTI_NO_ACTIVITY=1 gpu_run c1 3 2 || { say "  c1: cutap trace failed"; exit 1; }
check c1 "CUPTI's activity API would not start (CUPTI_ERROR_NOT_SUPPORTED)" 27 || exit 1
CUTAP_CUPTI_LIB=$B/fake/libcuda.so.1 gpu_run c2 3 2 || { say "  c2: cutap trace failed"; exit 1; }
check c2 "$B/fake/libcuda.so.1 lacks the activity API" 0 || exit 1
CUTAP_CUPTI_LIB=/nonexistent/libcupti.so.13 gpu_run c3 3 2 || { say "  c3: cutap trace failed"; exit 1; }
check c3 "libcupti not found (CUTAP_CUPTI_LIB=/nonexistent/libcupti.so.13: /nonexistent/libcupti.so.13: ..." 0
