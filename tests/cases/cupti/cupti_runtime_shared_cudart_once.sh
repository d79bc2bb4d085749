#!/usr/bin/env bash
# A shared libcudart whose functions also report through the driver's
# tools hook, called from a static runtime function (t_shared_rt.c): each
# call is recorded once, nesting as made. Under --runtime=cupti (with and
# without correlationData) each shared call reaches cutap through our
# wrapper and through CUPTI; by default the shared copy is handed the
# driver's callback words and makes no report at all (its calls are our
# wrapper's), while the program's own copy reports to cutap.
. "$(dirname "$0")/../../lib/init.sh"

for corr in 0 1 default; do
    if [ $corr = default ]; then opt=; want=0; else opt=--runtime=cupti; want=10; fi
    FAKE_CUPTI_NO_CORR=$corr "$CUTAP" trace $opt -o "$WORK/cd$corr" -- $T/t_shared_rt 10 \
        >"$WORK/cd.out" 2>"$WORK/cd.err" || { cat "$WORK/cd.err" >&2; exit 1; }
    grep -q "^delivered $want\$" "$WORK/cd.err" || { say "  $corr: the shared copy did not report $want calls:"; cat "$WORK/cd.err" >&2; exit 1; }
    called "$WORK/cd.out" >"$WORK/cd.called"
    # the copies' calls of TOOLS_RUNTIME_CALLBACK_HOOKS#2: one per copy
    # where recorded (a trampoline of cutap's table copy), none by default
    report_names "$WORK/cd$corr" >"$WORK/cd.all" || exit 1
    [ "$(grep -c '^TOOLS_RUNTIME_CALLBACK_HOOKS#2$' "$WORK/cd.all")" = "$([ $corr = default ] && echo 0 || echo 2)" ] \
        || { say "  $corr: TOOLS_RUNTIME_CALLBACK_HOOKS#2 calls"; exit 1; }
    # and the TOOLS_TLS#2 each report brings (runtime_default_every_copy)
    grep -v -e '^TOOLS_RUNTIME_CALLBACK_HOOKS#2$' -e '^TOOLS_TLS#2$' "$WORK/cd.all" >"$WORK/cd.seen"
    same_counts "$WORK/cd.called" "$WORK/cd.seen" || exit 1
    "$CUTAP" report --tree --format csv "$WORK/cd$corr" | sed 's/ \[t_shared_rt\]//g' >"$WORK/cd.csv" || exit 1
    grep -q '^cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,1,9,' "$WORK/cd.csv" \
        && grep -q '^cudaMemset > cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,2,1,' "$WORK/cd.csv" \
        && grep -q '^cudaMemset > cuMemsetD8_v2,driver,cuMemsetD8_v2,1,1,' "$WORK/cd.csv" \
        || { say "  corr $corr:"; cat "$WORK/cd.csv" >&2; exit 1; }
done
