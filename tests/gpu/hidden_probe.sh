#!/usr/bin/env bash
# Which cuGetExportTable tables can cutap hand out as wrapped copies without
# changing any result? For each table the runtime asks for, run workloads
# with CUTAP_HIDDEN=<that table> only and compare with a bare run.
# Needs tests/gpu/run.sh to have built build/gpu/ first (same machine).
set -u
cd "$(dirname "$0")/../.."
B=build/gpu
W=tests/gpu/workloads
LIB=$PWD/build/libcutap.so
R=$(mktemp -d)
make -s lib >/dev/null
TABLES=${TABLES:-"CUDART_INTERFACE TOOLS_RUNTIME_CALLBACK_HOOKS TOOLS_TLS CONTEXT_LOCAL_STORAGE INTEGRITY_CHECK CONTEXT_CHECKS TOOLS_CONTEXT f8cff95121468b4eb9e2fb469e7c0dd9 69a28e9f24498b47b030c5da330ea4e9 1734dc26800d47458726c0f1e7dd8bca"}
declare -A CMD=([vecadd_static]="$B/vecadd_static" [cublas_gemm]="$B/cublas_gemm" [torch_step]="python3 $W/torch_step.py")
for n in vecadd_static cublas_gemm torch_step; do ${CMD[$n]} >"$R/$n.bare" 2>/dev/null; done
printf '%-34s %-14s %-14s %-14s %s\n' table vecadd_static cublas_gemm torch_step "slots called (calls)"
for t in $TABLES; do
  line=""
  for n in vecadd_static cublas_gemm torch_step; do
    CUTAP_HIDDEN=$t CUTAP_LOG="$R/$n.$t.log" LD_PRELOAD=$LIB ${CMD[$n]} >"$R/$n.$t.out" 2>"$R/$n.$t.err"
    rc=$?
    if cmp -s "$R/$n.bare" "$R/$n.$t.out" && [ $rc = 0 ]; then r=same; else r="DIFF(rc=$rc)"; fi
    line="$line $(printf '%-14s' "$r")"
  done
  slots=$(cat "$R"/*."$t".log 2>/dev/null | sed -n 's/.* \([A-Za-z_0-9]*#[0-9]*\)(.*/\1/p' | sort | uniq -c | awk '{printf "%s(%s) ", $2, $1}')
  wrapped=$(grep -l "length unknown" "$R"/*."$t".err 2>/dev/null | head -1)
  printf '%-34s%s %s%s\n' "$t" "$line" "$slots" "${wrapped:+[length unknown: observed only]}"
done
# Table sizes (word 0) as seen: from a run with CUTAP_DEBUG.
tar czf "${OUT:-/tmp}/hidden-probe.tgz" -C "$R" . 2>/dev/null
