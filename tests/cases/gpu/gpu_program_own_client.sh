#!/usr/bin/env bash
# Issue #31: a program with a CUPTI activity client of its own (a profiler:
# Kineto, a CUPTI sample; tests/t_gpu_own_client.c). CUPTI serves one pair of
# buffer callbacks, so cutap watches the program's registrations
# (src/front/cupti_watch.c, an export every library linked against libcupti
# binds to):
#  - registered before the first cuInit: --gpu does not start (header
#    ASKED|FAILED, why in the summary), the program's client gets all 40
#    kernels, as bare;
#  - registered after 20 launches (through the linked function, or found
#    by dlsym(RTLD_DEFAULT) or by dlsym of its handle with libcupti loaded
#    RTLD_LOCAL: cutap's dlsym answers with its export there): cutap first
#    takes what CUPTI holds for it (the first 20 kernels, joined), turns its
#    collection off and says so (header TAKEN, report --gpu), and the
#    program's client gets the 20 kernels it asked for, as bare (not cutap's
#    earlier ones, nor cutap's correlation records);
#  - CUPTI linked into a library of the program's own, loaded RTLD_LOCAL,
#    no libcupti (t_gpu_embedded, as older PyTorch builds): the call that
#    finds cutap's export goes to that library's function (with only
#    libcupti looked for, it failed: CUPTI_ERROR_NOT_INITIALIZED);
#  - a CUPTI subscriber of its own after 20 launches (cuptiSubscribe: CUPTI
#    has one, under --gpu cutap's): cutap lets its own go first, so the
#    program's succeeds and gets its 40 callbacks, as bare (without that,
#    CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED); cutap joins the
#    first 20 kernels through its callbacks and the last 20 through
#    external ids (header CALLBACKS|PUSHED), all 40 joined; the same with
#    libcupti loaded RTLD_LOCAL and cuptiSubscribe taken by dlsym of its
#    handle (as XLA's profiler does), and through a weak reference to
#    cuptiSubscribe_v2, which this libcupti lacks (cutap's export then
#    answers with cuptiSubscribe); a forked child's own subscription
#    succeeds, as bare (the CUPTI memory it got held cutap's; helper-29);
#    a thread's subscription made while cutap subscribes inside cuInit
#    (FAKE_CUPTI_ENABLE_CB_SLEEP_MS: a 300 ms window) waits for cutap to
#    let its own go, and succeeds (it failed when the yield was set only
#    at the end of cutap's start);
#  - launches captured into a graph (cuStreamBeginCapture_v2 ..
#    cuStreamEndCapture, no GPU work): 20 kernels, all joined, and report
#    --gpu does not count the 10 captured launches as calls whose activity
#    was not delivered (it did before the thread's captures were
#    followed);
#  - a library of the program's that defines cuptiSubscribe and passes it
#    on to libcupti through dlsym (tests/lib_cupti_forward.c), called
#    through dlsym of its own handle: as bare (helper-30: cutap's dlsym
#    gave it cutap's export, which called it back: SIGSEGV, status 139);
#  - a library whose constructor subscribes (under the loader's lock)
#    while cutap subscribes inside cuInit (tests/lib_cupti_ctor.c,
#    FAKE_CUPTI_ENABLE_CB_SLEEP_MS=300): the program ends (it hung,
#    status 124), its subscription made (0) or refused as beside any tool
#    (39), as docs/LIMITS.md says;
#  - a program that registers activity callbacks on one thread (cutap
#    lets CUPTI go: FAKE_CUPTI_UNSUB_SLEEP_MS=300 makes that slow) and
#    subscribes on another 50 ms later: both succeed, as bare
#    (helper-31: with the state off before cuptiUnsubscribe returned, the
#    subscription got 39).
# Without the yield, or the dlsym, or the child's letting go, the
# program's subscription fails (39).
. "$(dirname "$0")/../../lib/init.sh"
export CUPTI_FORWARD=$T/libcupti_forward.so CUPTI_CTOR=$T/libcupti_ctor.so

rm -rf "${WORK:?}/ctor"
got=$(FAKE_CUPTI_ENABLE_CB_SLEEP_MS=300 timeout 30 "$CUTAP" trace --gpu -o "$WORK/ctor" -- "$T/t_gpu_own_client" ctor \
      2>"$WORK/ctor.err"); st=$?
[ $st = 0 ] && { [ "$got" = "ctor subscriber 0" ] || [ "$got" = "ctor subscriber 39" ]; } \
    || { say "  ctor: status $st, '$got'"; tail -3 "$WORK/ctor.err" >&2; exit 1; }
for m in before after local handle sub subhandle weakv2 forksub subrace capture stub regsub; do
    [ $m = subrace ] && export FAKE_CUPTI_ENABLE_CB_SLEEP_MS=300
    [ $m = stub ] && unset FAKE_CUPTI_ENABLE_CB_SLEEP_MS
    [ $m = regsub ] && export FAKE_CUPTI_UNSUB_SLEEP_MS=300
    bare=$("$T/t_gpu_own_client" $m 2>&1) || { say "  bare $m failed: $bare"; exit 1; }
    rm -rf "${WORK:?}/$m"
    got=$("$CUTAP" trace --gpu -o "$WORK/$m" -- "$T/t_gpu_own_client" $m 2>"$WORK/$m.err") \
        || { say "  cutap trace --gpu $m failed"; tail -3 "$WORK/$m.err" >&2; exit 1; }
    [ "$got" = "$bare" ] || { say "  $m: the program's client got '$got', bare '$bare'"; exit 1; }
    gpu_sum $m || exit 1
    if [ $m = capture ]; then
        [ "$got" = "captured 0" ] && gpu_is $m kernel 20 && gpu_is $m unjoined 0 || exit 1
        "$CUTAP" report --gpu "$WORK/$m" >"$WORK/$m.rep" 2>&1 || { say "  capture: report --gpu failed"; exit 1; }
        if grep -q "have no GPU activity" "$WORK/$m.rep"; then say "  capture: counted as not delivered:"; cat "$WORK/$m.rep" >&2; exit 1; fi
        grep -q "20 of 20 joined" "$WORK/$m.rep" || { say "  capture: report --gpu:"; head -5 "$WORK/$m.rep" >&2; exit 1; }
        continue
    fi
    if [ $m = forksub ] || [ $m = subrace ] || [ $m = stub ] || [ $m = regsub ]; then
        [ "$got" = "child subscriber 0" ] || [ "$got" = "race subscriber 0" ] || [ "$got" = "stub subscriber 0" ] \
            || [ "$got" = "register 0 subscribe 0" ] || { say "  $m: '$got'"; exit 1; }
        continue
    fi
    if [ $m = sub ] || [ $m = subhandle ] || [ $m = weakv2 ]; then
        [ "$got" = "own subscriber 0 callbacks 40" ] || { say "  $m: '$got'"; exit 1; }
        gpu_is $m bits 'ASKED|STARTED|FLUSHED|CALLBACKS|PUSHED' && gpu_is $m kernel 40 && gpu_is $m unjoined 0 \
            && gpu_is $m corr_cb 20 && gpu_is $m corr_gpu 20 || exit 1
    elif [ $m = before ]; then
        gpu_is $m bits 'ASKED|FAILED' && gpu_is $m records 0 || exit 1
        grep -q -- "--gpu: the program has a CUPTI activity client of its own" "$WORK/$m.err" \
            || { say "  before: not said"; cat "$WORK/$m.err" >&2; exit 1; }
    else
        gpu_is $m bits 'ASKED|STARTED|TAKEN|CALLBACKS' && gpu_is $m kernel 20 && gpu_is $m unjoined 0 || exit 1
        grep -q -- "--gpu: the program's own CUPTI client took the activity buffers over" "$WORK/$m.err" \
            || { say "  $m: not said"; cat "$WORK/$m.err" >&2; exit 1; }
        "$CUTAP" report --gpu "$WORK/$m" | grep -q "took the activity buffers over .* after that is not recorded" \
            || { say "  $m: report --gpu does not say it"; exit 1; }
    fi
done
bare=$("$T/t_gpu_embedded") && got=$(LD_PRELOAD=$LIB "$T/t_gpu_embedded") || { say "  t_gpu_embedded failed"; exit 1; }
[ "$bare" = "embedded result 0 calls 1" ] && [ "$got" = "$bare" ] || { say "  embedded: '$got', bare '$bare'"; exit 1; }
