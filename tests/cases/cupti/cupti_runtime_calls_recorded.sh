#!/usr/bin/env bash
# --runtime=cupti with the fake libcupti and a program with its own static
# mini runtime (t_static_rt): every runtime call CUPTI reported is recorded
# once, in layer runtime, with its argument words and result (structs by
# value by address; an older callback id's params not read); the output is
# unchanged; also without correlationData.
. "$(dirname "$0")/../../lib/init.sh"

srt_run cr --runtime=cupti || exit 1
srt_same_output cr || exit 1
# the fake delivered: 3 + 200 cudaMalloc entries, 64 of the 70 nested calls
[ "$(grep -c '^RTCALL cudaMalloc$' "$WORK/cr.err")" = 203 ] && [ "$(grep -c '^RTCALL cudaDeviceSynchronize$' "$WORK/cr.err")" = 64 ] \
    || { say "  t_static_rt: unexpected RTCALL lines"; sort "$WORK/cr.err" | uniq -c >&2; exit 1; }
# every runtime call CUPTI reported is recorded once, in layer runtime; the
# first one (entry before cuInit) and the calls deeper than 64 are not; a
# name cutap's runtime layer has not is recorded untyped
srt_recorded cr 1 || exit 1
"$CUTAP" report --format csv "$WORK/cr" >"$WORK/cr.csv" || exit 1
grep -q '^runtime,cudaMalloc,203,' "$WORK/cr.csv" && grep -q '^runtime,cudaFree,1,' "$WORK/cr.csv" \
    && grep -q '^runtime,cudaNotARuntimeFunction,1,' "$WORK/cr.csv" \
    && ! grep -q -e cudaGetDeviceCount -e _v3020 "$WORK/cr.csv" \
    || { cat "$WORK/cr.csv" >&2; exit 1; }
# arguments from CUPTI's params structs, results from its return value
# (the argument words are the last list of the line); a callback id of
# another signature than the pinned headers' (an older runtime's
# cudaStreamGetCaptureInfo, 3 parameters) is read with that signature (CUDA
# 11.8's headers: issue #28), never with 13.0's (7: past its struct)
# (cupti_runtime_calls_recorded.jsonl-patterns: how many lines of the
# JSON lines export each pattern must match)
"$CUTAP" export --format jsonl -o "$WORK/cr.jsonl" "$WORK/cr" || exit 1
while IFS=' ' read -r n pat; do
    [ "$(grep -cE -- "$pat" "$WORK/cr.jsonl")" = "$n" ] || { say "  not $n lines match: $pat"; grep '"runtime"' "$WORK/cr.jsonl" | head -12 >&2; exit 1; }
done <"$HERE/cupti_runtime_calls_recorded.jsonl-patterns"
# structs passed by value: their address inside CUPTI's params struct
read -r g b < <(sed -n 's/^ADDR cudaLaunchKernel //p' "$WORK/cr.err"); l=$(sed -n 's/^ADDR cudaMemAdvise //p' "$WORK/cr.err")
for pat in '"name":"cudaLaunchKernel","depth":0,"result":0,.*\["0xf0000100","'$g'","'$b'","0x0","0x40","0x0"\]' \
           '"name":"cudaMemAdvise","depth":0,"result":0,.*\["0x[0-9a-f]+","0x1000","0x1","'$l'"\]'; do
    [ "$(grep -cE -- "$pat" "$WORK/cr.jsonl")" = 1 ] || { say "  no line matches: $pat"; grep -e cudaLaunchKernel -e cudaMemAdvise "$WORK/cr.jsonl" >&2; exit 1; }
done
# Reports without correlationData: the same calls.
FAKE_CUPTI_NO_CORR=1 srt_run cr2 --runtime=cupti && srt_recorded cr2 1
