#!/usr/bin/env bash
# Driver calls made inside a runtime call have it as parent; calls
# nested deeper than cutap follows (64) leave it balanced; each runtime
# call is named by the object whose copy made it ([t_static_rt]). By
# default (the copy's own reports) and under --runtime=cupti, with and
# without correlationData.
. "$(dirname "$0")/../../lib/init.sh"

for corr in 0 1 default; do
    if [ $corr = default ]; then srt_run cn$corr || exit 1
    else FAKE_CUPTI_NO_CORR=$corr srt_run cn$corr --runtime=cupti || exit 1; fi
    "$CUTAP" report --tree --format csv "$WORK/cn$corr" >"$WORK/cn.csv" || exit 1
    awk -F, '
        { sub(/ \[t_static_rt\]/, "", $1) }   # every runtime call is named by its copy
        $1 == "cudaMalloc" && $2 == "runtime" && $5 == 203 {ok["m"]=1}
        $1 == "cudaMalloc > cuMemAlloc_v2" && $2 == "driver" && $4 == 1 && $5 == 203 {ok["a"]=1}
        $1 == "cudaMemset > cuMemsetD8_v2" && $5 == 1 {ok["s"]=1}
        $1 == "cudaLaunchKernel > cuLaunchKernel" && $5 == 1 {ok["l"]=1}
        $1 == "cudaGetDevice > cuCtxGetDevice" && $5 == 1 {ok["g"]=1}
        $1 == "cudaFree > cuMemFree_v2" && $5 == 1 {ok["f"]=1}
        $1 == "cuDeviceGetCount" || $1 == "cuInit" {top++}
        $1 == "cudaNotARuntimeFunction > cuCtxGetCurrent" && $5 == 1 {ok["u"]=1}
        $1 == "cudaGetDeviceCount > cuDeviceGetCount" || $1 == "cudaGetDeviceCount > cuInit" {top++; first++}
        $1 == "cuMemAlloc_v2" {bad = "cuMemAlloc_v2 at the top"}
        $3 == "cudaDeviceSynchronize" {ds++; if ($4 > dmax) dmax = $4}
        $3 == "cuCtxSynchronize" && $4 == 64 {ok["c"]=1}
        $1 == "cudaMemAdvise > cuMemAdvise_v2" && $5 == 1 {ok["v"]=1}
        # made by each level after the one inside returned: under that
        # level, the 64th for the 6 levels cutap does not follow
        $3 == "cuDriverGetVersion" {dv++; if ($5 != ($4 == 64 ? 6 : 1)) bad = "cuDriverGetVersion at depth " $4 ": " $5}
        END { n = 0; for (k in ok) n++
              # the first call (entry before cuInit) is seen by default only
              if ((first + 0) != ("'$corr'" == "default" ? 2 : 0)) bad = bad " first call: " first + 0
              if (n != 9 || top != 2 || ds != 64 || dmax != 63 || dv != 64 || bad != "") {
                  print "  corr '"$corr"': " n " of 9 checks, " top " top-level calls, " ds " cudaDeviceSynchronize, depth " dmax ", " dv " cuDriverGetVersion paths " bad > "/dev/stderr"; exit 1 } }' \
        "$WORK/cn.csv" || { head -20 "$WORK/cn.csv" >&2; exit 1; }
done
# the parent ids of the export name the runtime call
"$CUTAP" export --format jsonl -o "$WORK/cn.jsonl" "$WORK/cn0" || exit 1
python3 "$TL/jsonl_parents.py" "$WORK/cn.jsonl" cuMemAlloc_v2 cudaMalloc 203 \
    || { say "  cuMemAlloc_v2 parents are not all cudaMalloc"; exit 1; }
"$CUTAP" export --format jsonl -o "$WORK/cnd.jsonl" "$WORK/cndefault" || exit 1
python3 "$TL/jsonl_parents.py" "$WORK/cnd.jsonl" cuMemAlloc_v2 cudaMalloc 203 \
    || { say "  default: cuMemAlloc_v2 parents are not all cudaMalloc"; exit 1; }
