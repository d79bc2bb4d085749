#!/usr/bin/env bash
# Issue #25, never harm: runtime copies whose reports are not in the form
# measured (a record on an inaccessible page, a record too short, a name
# that cannot be read: tests/t_bad_report.c, each from a call site of its
# own) are checked once per site with reads that cannot fault: the program
# runs on and exits 0 with its output unchanged, cutap says once per site
# that it cannot record that copy (in the trace's registry, not on the
# program's stderr), and records none of those reports, while a
# well-formed report from a fourth site is recorded (one cudaGetDevice).
# And with a CUPTI client in the process, a #1 that comes with no #4
# before it is passed on without the driver's #4: never with an earlier
# report's arguments (which would write into a record already gone). And a
# call whose exit is never reported does not keep later calls nested
# under it: a new record at its record's address ends it (noexit: two
# such cudaGetDevice and a whole cudaMalloc, all at depth 0), without
# reading its outputs (noexitgone: the output's page is unmapped before
# the next call; in place, through the fused path and the callbacks). And an
# entry's result field is not judged (entryresult: three cudaMalloc whose
# entries, from the site their exits come from, carry an inaccessible
# result pointer, as CUDA 11.8 and 12.4 runtimes' do: all three recorded
# whole, no warning; judged by it, the site's reports were all dropped).
# And a function whose own name ends in _v2 (cudaStreamGetCaptureInfo_v2,
# 6 parameters) is not taken for 13.0's cudaStreamGetCaptureInfo (7): its
# report is recorded under its name, typed with its 6 parameters, nothing
# read past them (v2: an unmapped address follows; SIGSEGV before).
# And a static runtime of CUDA 11.8 reporting by callback ids that are not
# 13.0's newest (older: cudaGraphInstantiate's 5 parameters of 11.8 by
# cbid 310, cudaGetDeviceProperties by cbid 4) is typed by 11.8's
# signatures, decoded under their names (untyped before issue #28), and
# cudaMemAdvise reported by both majors' callback ids is decoded by each
# call's own description (the first one described the name for both).
# And a report of 13.0's cudaGraphInstantiate made before and after the
# runtime layer is bound to an 11.8 libcudart (stalevariant): the second is
# recorded untyped (no word), never with the plan or the captures of 11.8's
# variant (its pLogBuffer would be an unmapped word after the struct).
# And a callback id 13.0 keeps while an older major reported another
# signature by it (entrypoint: 11.8's 3-parameter cudaGetDriverEntryPoint by
# 406, 13.0's takes 4) is recorded untyped: 13.0's driverStatus output
# would be the unmapped word after 11.8's struct (SIGSEGV before).
. "$(dirname "$0")/../../lib/init.sh"

$T/t_bad_report >"$WORK/b.out" 2>&1 || { say "  bare run failed"; exit 1; }
grep -qx 'reported: none' "$WORK/b.out" || { say "  bare: the driver's words were set"; exit 1; }
"$CUTAP" trace -o "$WORK/t" -- $T/t_bad_report >"$WORK/t.out" 2>"$WORK/t.err" || { say "  traced run failed"; cat "$WORK/t.err" >&2; exit 1; }
grep -qx 'reported: 4 entries, 4 exits' "$WORK/t.out" && grep -qx survived "$WORK/t.out" || { say "  traced output:"; cat "$WORK/t.out" >&2; exit 1; }
[ "$(reg_says_count "$WORK/t" 'reports its calls in a form cutap does not know')" = 3 ] \
    || { say "  not 3 warnings, one per bad site"; exit 1; }
report_names "$WORK/t" | grep -c '^cudaGetDevice$' | grep -qx 1 || { say "  the good report was not recorded once"; exit 1; }
# the library alone: nothing on the program's stderr, the same output
CUTAP_TRACE=$WORK/l LD_PRELOAD=$LIB $T/t_bad_report >"$WORK/l.out" 2>"$WORK/l.err" || { say "  preloaded run failed"; exit 1; }
[ ! -s "$WORK/l.err" ] && cmp -s "$WORK/t.out" "$WORK/l.out" || { say "  the program's stderr or output:"; cat "$WORK/l.err" "$WORK/l.out" >&2; exit 1; }
LD_PRELOAD=$T/libcupti_client.so "$CUTAP" trace -o "$WORK/s" -- $T/t_bad_report stale >"$WORK/s.out" 2>"$WORK/s.err" \
    || { say "  stale: traced run failed"; exit 1; }
grep -qx 'stale #4: no' "$WORK/s.out" || { say "  stale: $(cat "$WORK/s.out")"; exit 1; }
"$CUTAP" trace -o "$WORK/n" -- $T/t_bad_report noexit >"$WORK/n.out" 2>"$WORK/n.err" || { say "  noexit: traced run failed"; exit 1; }
"$CUTAP" report --tree --format csv "$WORK/n" >"$WORK/n.csv" || exit 1
grep -q '^cudaGetDevice \[t_bad_report\],runtime,cudaGetDevice,0,2,' "$WORK/n.csv" \
    && grep -q '^cudaMalloc \[t_bad_report\],runtime,cudaMalloc,0,1,' "$WORK/n.csv" \
    && ! awk -F, '$2 == "runtime" && $4 != 0' "$WORK/n.csv" | grep -q . \
    || { say "  noexit: calls nested under an unfinished one:"; cat "$WORK/n.csv" >&2; exit 1; }
for v in 0:0 1:0 0:1; do
    IFS=: read -r nfp nf <<<"$v"
    rm -rf "$WORK/g"
    CUTAP_NO_FASTPATH=$nfp CUTAP_NO_FUSED=$nf "$CUTAP" trace -o "$WORK/g" -- $T/t_bad_report noexitgone >"$WORK/g.out" 2>"$WORK/g.err"
    rc=$?
    [ $rc = 0 ] && grep -qx noexitgone "$WORK/g.out" \
        || { say "  noexitgone (CUTAP_NO_FASTPATH=$nfp CUTAP_NO_FUSED=$nf): exit $rc"; cat "$WORK/g.err" >&2; exit 1; }
    [ "$("$CUTAP" dump "$WORK/g" | grep -c 'cudaGetDevice(')" = 2 ] || { say "  noexitgone: not 2 cudaGetDevice"; exit 1; }
done
"$CUTAP" trace -o "$WORK/e" -- $T/t_bad_report entryresult >"$WORK/e.out" 2>"$WORK/e.err" || { say "  entryresult: traced run failed"; exit 1; }
grep -qx entryresult "$WORK/e.out" || exit 1
"$CUTAP" report --format csv "$WORK/e" | awk -F, '$2 == "cudaMalloc"' >"$WORK/e.csv"
grep -q '^runtime,cudaMalloc,3,0,' "$WORK/e.csv" && ! grep -q unfinished "$WORK/e.csv" \
    && [ "$(reg_says_count "$WORK/e" 'in a form cutap does not know')" = 0 ] \
    || { say "  entryresult: $(cat "$WORK/e.csv")"; exit 1; }
"$CUTAP" trace -o "$WORK/v" -- $T/t_bad_report v2 >"$WORK/v.out" 2>"$WORK/v.err" || { say "  v2: traced run failed ($?)"; exit 1; }
grep -qx v2 "$WORK/v.out" || exit 1
"$CUTAP" dump "$WORK/v" 2>/dev/null | grep -q ' cudaStreamGetCaptureInfo_v2(stream=NULL, captureStatus_out=0x[0-9a-f]*→cudaStreamCaptureStatusNone, id_out=0x[0-9a-f]*→0, graph_out=0x[0-9a-f]*→0x0, dependencies_out=0x[0-9a-f]*→0x0, numDependencies_out=0x[0-9a-f]*→0) = cudaSuccess' \
    || { say "  v2: not recorded as cudaStreamGetCaptureInfo_v2 with its 6 parameters:"; "$CUTAP" dump "$WORK/v" | grep -i capture >&2; exit 1; }
"$CUTAP" trace -o "$WORK/o" -- $T/t_bad_report older >"$WORK/o.out" 2>"$WORK/o.err" || { say "  older: traced run failed ($?)"; exit 1; }
grep -qx older "$WORK/o.out" || exit 1
"$CUTAP" dump "$WORK/o" 2>/dev/null >"$WORK/o.dump"
grep -q ' cudaGraphInstantiate(pGraphExec=0x[0-9a-f]*, graph=0x1234, pErrorNode=0x[0-9a-f]*, pLogBuffer=0x[0-9a-f]*, bufferSize=64) = cudaSuccess' "$WORK/o.dump" \
    && grep -q ' cudaGetDeviceProperties(prop=0x[0-9a-f]*, device=3) = cudaSuccess' "$WORK/o.dump" \
    || { say "  older: not typed by 11.8's signatures:"; grep -e Instantiate -e Properties "$WORK/o.dump" >&2; exit 1; }
# one name, two descriptions in one trace: each call decoded by its own
grep -q ' cudaMemAdvise(devPtr=0x[0-9a-f]*, count=64, advice=cudaMemAdviseSetPreferredLocation, device=5) = cudaSuccess' "$WORK/o.dump" \
    && grep -q ' cudaMemAdvise(devPtr=0x[0-9a-f]*, count=64, advice=cudaMemAdviseSetPreferredLocation, location={…}@0x[0-9a-f]*) = cudaSuccess' "$WORK/o.dump" \
    || { say "  older: cudaMemAdvise of two majors:"; grep Advise "$WORK/o.dump" >&2; exit 1; }
"$CUTAP" trace -o "$WORK/sv" -- $T/t_bad_report stalevariant "$B/fakelibs/libcudart.so.11.0" >"$WORK/sv.out" 2>"$WORK/sv.err" \
    || { say "  stalevariant: traced run failed ($?)"; tail -3 "$WORK/sv.err" >&2; exit 1; }
grep -qx stalevariant "$WORK/sv.out" && grep -qx 'cudaGetDevice = 0' "$WORK/sv.out" || { say "  stalevariant: $(cat "$WORK/sv.out")"; exit 1; }
# before the binding: typed with 13.0's 3 parameters; after: untyped, no word
"$CUTAP" export --format jsonl -o "$WORK/sv.jsonl" "$WORK/sv" || exit 1
[ "$(jsonl_calls "$WORK/sv.jsonl" cudaGraphInstantiate | tr '\n' ,)" = "0 3,0 0," ] \
    || { say "  stalevariant: recorded (result nargs):"; jsonl_calls "$WORK/sv.jsonl" cudaGraphInstantiate >&2; exit 1; }
"$CUTAP" trace -o "$WORK/ep" -- $T/t_bad_report entrypoint >"$WORK/ep.out" 2>"$WORK/ep.err" || { say "  entrypoint: traced run failed ($?)"; exit 1; }
grep -qx entrypoint "$WORK/ep.out" || exit 1
"$CUTAP" export --format jsonl -o "$WORK/ep.jsonl" "$WORK/ep" || exit 1
[ "$(jsonl_calls "$WORK/ep.jsonl" cudaGetDriverEntryPoint | tr '\n' ,)" = "0 0," ] \
    || { say "  entrypoint: recorded (result nargs):"; jsonl_calls "$WORK/ep.jsonl" cudaGetDriverEntryPoint >&2; exit 1; }
