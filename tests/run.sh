#!/usr/bin/env bash
# cutap test runner: `tests/run.sh [PATTERN...]` runs the cases whose names
# match (shell globs; all when none), prints PASS/FAIL/SKIP per case and
# closes with "N passed, N failed, N skipped". Built by `make test-build`.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
B=$ROOT/build
T=$B/tests
LIB=$B/libcutap.so
export LD_LIBRARY_PATH=$B/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset CUTAP_LOG CUTAP_STAT CUTAP_PLUGINS CUTAP_HIDDEN CUTAP_DRIVER CUTAP_DEBUG
WORK=$(mktemp -d /tmp/cutap-tests.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

pass=0 fail=0 skip=0
failed_names=()
say() { printf '%s\n' "$*" >&2; }

# --- helpers -----------------------------------------------------------
# Names of the outermost (depth 0) calls in a CUTAP_LOG file, one a line.
top_names() { sed -n 's/^\[[0-9/]*\] t=[0-9]* \([A-Za-z_0-9#]*\)(.*/\1/p' "$@"; }
# Names of the calls at depth d (2*d spaces of indentation).
depth_names() { local d=$1; shift; local pad; pad=$(printf '%*s' $((2 * d)) '')
    sed -n "s/^\[[0-9/]*\] t=[0-9]* ${pad}\([A-Za-z_0-9#]*\)(.*/\1/p" "$@"; }
# The CALL lines a test program printed, as names.
called() { sed -n 's/^CALL //p' "$1"; }
# Same multiset of names in two files?
same_counts() {
    if ! diff <(sort "$1" | uniq -c) <(sort "$2" | uniq -c) >"$WORK/diff"; then
        say "  calls made (<) and calls cutap recorded (>) differ:"; head -20 "$WORK/diff" >&2; return 1
    fi
}
# Run a program bare (must pass), then under cutap with CUTAP_LOG; every
# call the program says it made must be in the log, exactly once.
traced_equal() {
    local name=$1; shift
    "$@" >"$WORK/$name.bare" 2>"$WORK/$name.bare.err" || { say "  bare run failed:"; tail -5 "$WORK/$name.bare.err" >&2; return 1; }
    rm -f "$WORK/$name.log"
    EXPECT_CUTAP=1 CUTAP_LOG="$WORK/$name.log" LD_PRELOAD=$LIB "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" \
        || { say "  run under cutap failed:"; tail -5 "$WORK/$name.err" >&2; return 1; }
    called "$WORK/$name.out" >"$WORK/$name.called"
    [ -s "$WORK/$name.called" ] || { say "  the program reported no calls"; return 1; }
    top_names "$WORK/$name.log" >"$WORK/$name.seen"
    same_counts "$WORK/$name.called" "$WORK/$name.seen"
}

# --- cases ---------------------------------------------------------------
case_regen_check() {
    /usr/bin/python3 -c 'import clang.cindex' 2>/dev/null && [ -f /usr/local/cuda/include/cuda.h ] || return 77
    make -s regen-check
}

case_exports() {
    # Every API export of the real driver (580) is exported by libcutap.so,
    # plus dlsym/dlvsym and the public API, and nothing else.
    nm -D --defined-only "$LIB" | awk '{print $3}' | sort >"$WORK/ours"
    grep -v '^cudbg' gen/libcuda-580.159.04-exports.txt | sort >"$WORK/driver"
    local missing; missing=$(comm -13 "$WORK/ours" "$WORK/driver")
    [ -z "$missing" ] || { say "  not exported: $missing"; return 1; }
    local extra; extra=$(comm -23 "$WORK/ours" "$WORK/driver" | grep -v -e '^cutap_' -e '^dlsym$' -e '^dlvsym$' \
        -e '^cuEventCreateFromEGLSync$')
    [ -z "$extra" ] || { say "  exported but not API: $extra"; return 1; }
    say "  $(wc -l <"$WORK/driver") driver entry points exported"
}

for link in lazy now pie; do
    eval "case_plt_$link() { traced_equal plt_$link \$T/t_paths_$link plt; }"
    eval "case_procaddr_$link() { traced_equal procaddr_$link \$T/t_paths_$link procaddr; }"
done
case_dlopen_soname_local() { traced_equal dl1 $T/t_paths_pie dlopen libcuda.so.1 local; }
case_dlopen_devname_global() { traced_equal dl2 $T/t_paths_lazy dlopen libcuda.so global; }
case_dlopen_abspath() { traced_equal dl3 $T/t_paths_now dlopen "$B/fake/libcuda.so.1" local; }
case_dlopen_only_abspath_dlvsym() { traced_equal dl4 $T/t_dlonly "$B/fake-alt/libcuda-alt.so"; }
case_dlvsym() { EXPECT_CUTAP=1 LD_PRELOAD=$LIB $T/t_paths_pie dlvsym; }
case_reopen() { traced_equal reopen $T/t_paths_pie reopen; }
case_driver_before_cutap_init() { traced_equal early $T/t_early; }
case_unknown_entry_points() { traced_equal future $T/t_paths_pie future; }
case_untyped_export_lazy_plt() { traced_equal future_lazy $T/t_paths_lazy future; }

case_export_tables() {
    traced_equal hidden $T/t_paths_pie hidden || return 1
    grep -q 'cuGetExportTable(.*uuid=fa4e0001000000000000000000000001 table=FAKE_SIZED = 0' "$WORK/hidden.log" \
        || { say "  request not recorded with uuid and name"; return 1; }
    grep -q 'table=CUDART_INTERFACE' "$WORK/hidden.log" || { say "  known table not named"; return 1; }
    # CUDART_INTERFACE is not wrapped by default: no slot calls recorded.
    ! grep -q 'CUDART_INTERFACE#' "$WORK/hidden.log"
}
case_export_tables_all() {
    EXPECT_WRAPPED_CUDART=1 CUTAP_HIDDEN=all traced_equal hidden_all $T/t_paths_pie hidden
}
case_export_tables_observe_only() {
    CUTAP_HIDDEN=observe CUTAP_LOG=$WORK/obs.log LD_PRELOAD=$LIB $T/t_paths_pie hidden >/dev/null || return 1
    ! grep -q '#[0-9]' "$WORK/obs.log" && grep -q 'table=FAKE_SIZED' "$WORK/obs.log"
}
case_export_tables_by_uuid() {
    CUTAP_HIDDEN=fa4e0002000000000000000000000002 CUTAP_LOG=$WORK/uu.log LD_PRELOAD=$LIB $T/t_paths_pie hidden >/dev/null || return 1
    grep -q 'FAKE_NOSIZE#1' "$WORK/uu.log" && ! grep -q 'FAKE_SIZED#' "$WORK/uu.log"
}

case_nesting() {
    traced_equal nested $T/t_paths_pie nested || return 1
    # cuProfilerStart (fake) calls cuDriverGetVersion: one level deeper,
    # logged before its parent (lines are written when a call returns).
    [ "$(depth_names 1 "$WORK/nested.log")" = cuDriverGetVersion ] || { say "  no nested call at depth 1"; return 1; }
}

case_exact_fast_path() { LD_PRELOAD=$LIB $T/exact; }
case_exact_slow_path() { CUTAP_LOG=$WORK/exact.log LD_PRELOAD=$LIB $T/exact && [ "$(wc -l <"$WORK/exact.log")" -ge 600 ]; }
case_exact_without_cutap() { $T/exact; }

case_threads_16_first_calls() {
    for i in 1 2 3; do   # the first-call race, three times
        traced_equal thr$i $T/t_threads || return 1
    done
}

case_fork() {
    local d=$WORK/fork; mkdir -p "$d"
    CUTAP_LOG="$d/log.%p" LD_PRELOAD=$LIB $T/t_fork >"$d/out" || return 1
    local parent child
    parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$d/out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$d/out")
    [ -f "$d/log.$parent" ] && [ -f "$d/log.$child" ] || { say "  missing per-process logs"; ls "$d" >&2; return 1; }
    [ "$(top_names "$d/log.$child" | sort | uniq -c | awk '{print $1, $2}')" = "3 cuMemAlloc_v2" ] \
        || { say "  child log:"; cat "$d/log.$child" >&2; return 1; }
    [ "$(top_names "$d/log.$parent" | tr '\n' ' ')" = "cuInit cuDriverGetVersion " ] \
        || { say "  parent log:"; cat "$d/log.$parent" >&2; return 1; }
}

case_exec() {
    # Before exec: cuInit; after exec (same pid, same log): the plt sequence.
    traced_equal exec $T/t_paths_pie exec
}

case_stat() {
    CUTAP_STAT=$WORK/stat.txt LD_PRELOAD=$LIB $T/t_paths_now plt >/dev/null || return 1
    awk '$NF == "cuMemAlloc_v2" && $3 == 2 && $4 == 1 {ok=1} END {exit !ok}' "$WORK/stat.txt" \
        || { say "  stat table:"; cat "$WORK/stat.txt" >&2; return 1; }
    grep -q 'cuMemFree_v2' "$WORK/stat.txt"
}

case_rtld_next_unchanged() {
    $T/t_rtldnext >"$WORK/rn.bare" 2>"$WORK/rn.bare.err" || return 1
    LD_PRELOAD=$LIB $T/t_rtldnext >"$WORK/rn.cutap" 2>"$WORK/rn.cutap.err" || return 1
    diff "$WORK/rn.bare" "$WORK/rn.cutap" >&2 || return 1
    grep -q 'tap_probe here=2 next=libnext_a.so value=1' "$WORK/rn.cutap" || return 1
    # A driver name looked up with RTLD_NEXT gets cutap's wrapper.
    grep -q 'cuInit owner: libcutap.so' "$WORK/rn.cutap.err" || { cat "$WORK/rn.cutap.err" >&2; return 1; }
}

case_openmp_libomp() {
    [ -x $T/t_omp ] || return 77
    local want; want=$($T/t_omp) || return 1
    local got; got=$(LD_PRELOAD=$LIB timeout 30 $T/t_omp) || { say "  did not finish"; return 1; }
    [ "$got" = "$want" ]
}

case_callback_api() {
    CUTAP_PLUGINS=$T/apitest.so LD_PRELOAD=$LIB $T/t_api >"$WORK/api.out" 2>"$WORK/api.err" \
        || { cat "$WORK/api.out" "$WORK/api.err" >&2; return 1; }
    grep -q 'apitest: modified=1 skipped=1 nested_depth=1 parent=cuProfilerStart posts=[0-9]* scratch=ok inner=14 pairs=ok' "$WORK/api.err" \
        || { cat "$WORK/api.err" >&2; return 1; }
}

case_driver_env_reentry() {
    # CUTAP_DRIVER names a shim whose constructor opens the real driver and
    # calls it while cutap is adopting: no deadlock, the shim (no driver
    # entry points) is refused, libcuda.so.1 is used, every call is traced.
    CUTAP_DRIVER=$T/libshim.so timeout 20 bash -c "$(declare -f traced_equal called top_names same_counts say); \
        WORK=$WORK LIB=$LIB traced_equal shim $T/t_paths_pie plt" || return 1
    grep -q 'libshim.so has no CUDA driver entry points' "$WORK/shim.err"
}

case_plugin_errors() {
    # A missing plugin gets a clear message and the program still runs.
    CUTAP_PLUGINS=$WORK/nonexistent.so:$T/libnext_a.so LD_PRELOAD=$LIB $T/t_paths_pie plt >/dev/null 2>"$WORK/pe.err" || return 1
    grep -q 'plugin .*nonexistent.so not loaded' "$WORK/pe.err" && grep -q 'has no cutap_plugin_init' "$WORK/pe.err"
}

case_example_memlimit() {
    CUTAP_PLUGINS=$B/examples/memlimit.so CUTAP_MEMLIMIT_BYTES=10000 LD_PRELOAD=$LIB $T/t_memlimit
}

case_no_driver() {
    # No libcuda.so.1 anywhere: calls return CUDA_ERROR_NOT_FOUND, with a message.
    env -u LD_LIBRARY_PATH $T/t_nodriver >"$WORK/nd.out" 2>"$WORK/nd.err" || { cat "$WORK/nd.out" "$WORK/nd.err" >&2; return 1; }
    grep -q 'no CUDA driver found' "$WORK/nd.err"
}

case_demo() {
    make -s demo >"$WORK/demo.out" 2>&1 || { tail -20 "$WORK/demo.out" >&2; return 1; }
    # Entry points the demo got through cuGetProcAddress (per-thread
    # variants), and a call through an export table, are all recorded.
    for want in ' cuMemcpyHtoD_v2_ptds(' ' cuLaunchKernel_ptsz(' ' FAKE_SIZED#1(' 'table=FAKE_SIZED' ' total$' 'demo: driver version 13000'; do
        grep -q -- "$want" "$WORK/demo.out" || { say "  demo output lacks '$want'"; return 1; }
    done
}

# --- run -------------------------------------------------------------------
all=$(declare -F | awk '{print $3}' | sed -n 's/^case_//p')
sel=()
if [ $# -eq 0 ]; then sel=($all); else
    for n in $all; do for p in "$@"; do [[ $n == $p ]] && { sel+=("$n"); break; }; done; done
fi
for n in "${sel[@]}"; do
    start=$(date +%s%N)
    ( "case_$n" ) >"$WORK/case.err" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ $rc -eq 0 ]; then pass=$((pass + 1)); printf 'PASS %-36s %6d ms\n' "$n" "$ms"
    elif [ $rc -eq 77 ]; then skip=$((skip + 1)); printf 'SKIP %-36s (prerequisite missing)\n' "$n"
    else fail=$((fail + 1)); failed_names+=("$n"); printf 'FAIL %-36s %6d ms\n' "$n" "$ms"; sed 's/^/    /' "$WORK/case.err"; fi
done
[ $fail -eq 0 ] || echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
