#!/usr/bin/env bash
# cutap test runner: `tests/run.sh [PATTERN...]` runs the cases whose names
# match (shell globs; all when none), prints PASS/FAIL/SKIP per case and
# closes with "N passed, N failed, N skipped". Built by `make test-build`.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
B=${CUTAP_TEST_BUILD:-$ROOT/build}   # make test passes BUILD
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
# reg_says DIR PATTERN: a warning of a traced process in DIR's registry
# (the library's channel when it is not started by cutap trace/stat).
reg_says() {
    grep -aq "$2" "$1/.cutap-procs" 2>/dev/null || { say "  no '$2' in $1/.cutap-procs"; return 1; }
}
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
    # Every API export of the real driver (580) and every export of the
    # runtime and libraries (pinned lists in gen/exports/, the names with
    # each layer's prefixes from gen/layers.py) is exported by libcutap.so,
    # plus dlsym/dlvsym, the public API, InitializeInjectionNvtx2 (the
    # NVTX injection entry point) and the exec family (noted in the trace
    # registry, src/core/exec.c), and nothing else.
    nm -D --defined-only "$LIB" | awk '{print $3}' | sort >"$WORK/ours"
    grep -v '^cudbg' gen/libcuda-580.159.04-exports.txt | sort >"$WORK/driver"
    /usr/bin/python3 -c '
import sys; sys.path.insert(0, "gen"); from layers import LAYERS
for l in LAYERS:
    for n in open("gen/exports/%s.txt" % l["exports"]) if l["exports"] else []:
        n = n.strip()
        if any(n.startswith(p) for p in l["prefixes"]) and not any(n.startswith(p) for p in l.get("exclude_prefixes", [])):
            print(n)' | sort >"$WORK/layers"
    sort -m "$WORK/driver" "$WORK/layers" >"$WORK/api"
    local missing; missing=$(comm -13 "$WORK/ours" "$WORK/api")
    [ -z "$missing" ] || { say "  not exported: $missing"; return 1; }
    local extra; extra=$(comm -23 "$WORK/ours" "$WORK/api" | grep -v -e '^cutap_' -e '^dlsym$' -e '^dlvsym$' \
        -e '^InitializeInjectionNvtx2$' -e '^cuEventCreateFromEGLSync$' \
        -e '^execl[ep]\?$' -e '^execv\(e\|p\|pe\)\?$' -e '^fexecve$' -e '^posix_spawnp\?$')
    [ -z "$extra" ] || { say "  exported but not API: $extra"; return 1; }
    say "  $(wc -l <"$WORK/driver") driver entry points and $(wc -l <"$WORK/layers") runtime/library functions exported"
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

case_callback_api_clients() {
    # API version 2 clients (tests/plugins/apitest.c): a second client
    # enabled by a filter sees the one cuDeviceGetCount the first did not
    # skip; a third, unregistered at once, sees no call and cannot be
    # enabled again; names and layers looked up.
    CUTAP_PLUGINS=$T/apitest.so LD_PRELOAD=$LIB $T/t_api >"$WORK/apic.out" 2>"$WORK/apic.err" \
        || { cat "$WORK/apic.out" "$WORK/apic.err" >&2; return 1; }
    grep -qx 'apitest: modified=1 skipped=1 nested_depth=1 parent=cuProfilerStart posts=[0-9]* scratch=ok inner=14 pairs=ok second=1 unregistered=0' "$WORK/apic.err" \
        || { cat "$WORK/apic.err" >&2; return 1; }
}

case_cli_version_install() {
    # cutap --version names the release, the trace format and the plugin
    # API; make install (DESTDIR, PREFIX) puts the command, the library
    # beside it in ../lib (found there by cutap trace), the headers, the
    # pkg-config file, the man page and the bash completion; the installed
    # command traces the demo; the trace header names the release.
    local v; v=$(sed -n 's/^#define CUTAP_VERSION "\(.*\)"$/\1/p' include/cutap.h)
    "$CUTAP" --version | grep -qx "cutap $v (trace format [0-9]*, plugin API [0-9]*, CUDA [0-9]*\.[0-9]* headers)" || return 1
    local inst=$WORK/inst
    make -s install DESTDIR="$inst" PREFIX=/opt/cutap BUILD="$B" >/dev/null || return 1
    local f
    for f in bin/cutap lib/libcutap.so include/cutap.h include/cutap_format.h lib/pkgconfig/cutap.pc \
        share/man/man1/cutap.1 share/bash-completion/completions/cutap; do
        [ -f "$inst/opt/cutap/$f" ] || { say "  $f not installed"; return 1; }
    done
    grep -qx "Version: $v" "$inst/opt/cutap/lib/pkgconfig/cutap.pc" && grep -qx 'Cflags: -I${includedir}' "$inst/opt/cutap/lib/pkgconfig/cutap.pc" || return 1
    bash -n "$inst/opt/cutap/share/bash-completion/completions/cutap" || return 1
    if command -v man >/dev/null; then man -l "$inst/opt/cutap/share/man/man1/cutap.1" 2>/dev/null | grep -q 'cutap trace' || return 1; fi
    "$inst/opt/cutap/bin/cutap" trace -o "$WORK/inst.tr" -- $T/t_record many 3 >/dev/null 2>"$WORK/inst.err" || { cat "$WORK/inst.err" >&2; return 1; }
    grep -q ': 3 calls, ' "$WORK/inst.err" || { cat "$WORK/inst.err" >&2; return 1; }
    grep -aq "cutap $v" "$WORK/inst.tr"/*.cutap || { say "  the trace header does not name cutap $v"; return 1; }
}

case_cli_help_complete() {
    # cutap --help and each command's --help: status 0 on stdout, every
    # option the command takes named, examples given; the top help names
    # every layer of the filter language (nvml included) and --tree/--force.
    local c o
    "$CUTAP" --help >"$WORK/h.top" || return 1
    for o in --tree --force --version nvml examples:; do grep -q -- "$o" "$WORK/h.top" || { say "  top help lacks $o"; return 1; }; done
    declare -A opts=([trace]="-o -e --runtime=symbols|cupti --no-nvtx examples:"
                     [stat]="-o --force -e --time-all --runtime=symbols|cupti examples:")
    for c in "${!opts[@]}"; do
        "$CUTAP" $c --help >"$WORK/h.$c" || { say "  $c --help: status $?"; return 1; }
        for o in ${opts[$c]}; do grep -q -- "$o" "$WORK/h.$c" || { say "  $c --help lacks $o"; return 1; }; done
    done
}

case_cli_filter_matches_nothing() {
    # A -e filter that selects none of the functions cutap knows (a typo)
    # is said at start, by trace and stat; the command still runs. Filters
    # that select something, a layer, or export-table slots say nothing.
    "$CUTAP" trace -o "$WORK/fw1" -e 'cuMemalloc*' -- $T/t_record many 2 >/dev/null 2>"$WORK/fw1.err" || return 1
    grep -q "^cutap: warning: -e 'cuMemalloc\*' selects none of the [0-9]* functions cutap knows" "$WORK/fw1.err" \
        || { cat "$WORK/fw1.err" >&2; return 1; }
    "$CUTAP" stat -e 'cudaGetDevic' -- $T/t_record many 2 >/dev/null 2>"$WORK/fw2.err" || return 1
    grep -q "selects none of the" "$WORK/fw2.err" || { cat "$WORK/fw2.err" >&2; return 1; }
    local f
    for f in 'cuMemAlloc*' 'layer=nvml' 'layer=hidden' '!cuInit' 'cublasSgemm_v2'; do
        "$CUTAP" trace -o "$WORK/fw3" -e "$f" -- $T/t_record many 2 >/dev/null 2>"$WORK/fw3.err" || return 1
        ! grep -q warning "$WORK/fw3.err" || { say "  -e '$f' warned:"; cat "$WORK/fw3.err" >&2; return 1; }
        rm -rf "$WORK/fw3"
    done
}

case_cli_select_at_read_time() {
    # report, dump and export take -e, --from and --to: selecting with -e
    # when reading gives the calls, depths and callers of a trace recorded
    # with that -e (nested runtime > cuBLAS > driver calls of the fakes);
    # a time window keeps the calls that start in it; bad values refused.
    local f
    libs_env env EXPECT_CUTAP=1 "$CUTAP" trace -o "$WORK/selA" -- $T/t_libs_now link >/dev/null 2>&1 || return 1
    for f in 'layer=driver' 'layer=cublas,layer=driver' '!cuCtxGetCurrent' 'cuMem*'; do
        rm -rf "$WORK/selB" "$WORK/selA.jsonl" "$WORK/selB.jsonl"
        libs_env env EXPECT_CUTAP=1 "$CUTAP" trace -o "$WORK/selB" -e "$f" -- $T/t_libs_now link >/dev/null 2>&1 || return 1
        "$CUTAP" export --format jsonl -o "$WORK/selA.jsonl" -e "$f" "$WORK/selA" || return 1
        "$CUTAP" export --format jsonl -o "$WORK/selB.jsonl" "$WORK/selB" || return 1
        python3 - "$WORK/selA.jsonl" "$WORK/selB.jsonl" <<'PY' || { say "  -e '$f' at read time differs from recording with it"; return 1; }
import json, sys
def calls(p):
    cs = [c for c in map(json.loads, open(p)) if c.get("type") == "call"]
    by = {c["id"]: c for c in cs}
    return [(c["name"], c["depth"], by[c["parent"]]["name"] if c["parent"] else None) for c in cs]
a, b = calls(sys.argv[1]), calls(sys.argv[2])
assert a and a == b, (len(a), len(b))
PY
        [ "$("$CUTAP" report -e "$f" --format csv "$WORK/selA" | sort | md5sum | cut -c1-8)" != "" ] || return 1
    done
    # the same names and counts in report -e as in the trace recorded with -e
    diff <("$CUTAP" report -e 'cuMem*' --format csv "$WORK/selA" | cut -d, -f1-4 | sort) \
         <("$CUTAP" report --format csv "$WORK/selB" | cut -d, -f1-4 | sort) >&2 || return 1
    "$CUTAP" dump "$WORK/selA" | awk '{print $1}' >"$WORK/sel.t" || return 1
    # a window between printed times (dump prints microseconds): from
    # halfway between two distinct start times to halfway between two later
    local from to
    from=$(awk 'NR > 3 && p != "" && $1 > p { printf "%.7f\n", (p + $1) / 2; exit } { p = $1 }' "$WORK/sel.t")
    to=$(awk -v f="$from" '$1 > f { n++ } n > 4 && p != "" && $1 > p { printf "%.7f\n", (p + $1) / 2; exit } { p = $1 }' "$WORK/sel.t")
    [ -n "$from" ] && [ -n "$to" ] || { say "  no window found"; return 1; }
    "$CUTAP" dump --from "$from" --to "$to" "$WORK/selA" | awk '{print $1}' >"$WORK/sel.w" || return 1
    awk -v f="$from" -v t="$to" '$1 > f && $1 < t' "$WORK/sel.t" | diff - "$WORK/sel.w" >&2 \
        || { say "  --from $from --to $to: not the calls that start in the window"; return 1; }
    [ -s "$WORK/sel.w" ] || return 1
    "$CUTAP" dump --from 2 --to 1 "$WORK/selA" >/dev/null 2>"$WORK/sel.err"; [ $? = 2 ] && grep -q 'before --from' "$WORK/sel.err" || return 1
    "$CUTAP" report -e 'layer=bogus' "$WORK/selA" >/dev/null 2>"$WORK/sel.err"; [ $? = 2 ] && grep -q "layer= takes" "$WORK/sel.err" || return 1
    "$CUTAP" export --format jsonl -o "$WORK/sel.x" --from abc "$WORK/selA" 2>/dev/null; [ $? = 2 ] || return 1
    local c
    for c in report dump export; do "$CUTAP" $c --help | grep -q -- '--from S' || { say "  $c --help lacks --from"; return 1; }; done
}

case_reader_v4_self_describing() {
    # Format version 4: a file names its layers and describes its ids
    # (tests/mk_trace.c v4names): a layer this reader never heard of is
    # reported by its name, a layer number that disagrees with the name
    # loses to the name, and a function unknown to the reader's tables is
    # dumped with the argument names and kinds the file gives. The library
    # writes version 4 with every typed id's signature; version 3 files of
    # the fixtures still read (reader_* cases).
    [ -x $MK ] || return 77
    rm -rf "$WORK/v4"; mkdir -p "$WORK/v4"
    $MK v4names "$WORK/v4" || return 1
    "$CUTAP" report --format csv "$WORK/v4" | cut -d, -f1-3 | sort >"$WORK/v4.csv" || return 1
    printf '%s\n' 'driver,cuInit,1' 'futurelayer,cuFutureCall,1' 'layer,name,calls' 'runtime,cudaGetDevice,1' \
        | diff - "$WORK/v4.csv" >&2 || return 1
    "$CUTAP" dump "$WORK/v4" | grep -q 'cuFutureCall(ctx=0xc0ffee, count=-5) = 0x3' || { "$CUTAP" dump "$WORK/v4" >&2; return 1; }
    "$CUTAP" export --format jsonl -o "$WORK/v4.jsonl" "$WORK/v4" && grep -q '"layer":"futurelayer"' "$WORK/v4.jsonl" || return 1
    # the library's own files: version 4, a signature in each typed id's name record
    rm -rf "$WORK/v4r"
    CUTAP_TRACE=$WORK/v4r LD_PRELOAD=$LIB $T/t_record many 2 >/dev/null || return 1
    python3 - "$WORK/v4r" <<'PY' || return 1
import glob, struct, sys
d = open(glob.glob(sys.argv[1] + "/*.cutap")[0], "rb").read()
assert struct.unpack_from("<I", d, 8)[0] == 4, "not version 4"
assert b"cuCtxGetCurrent\x00driver\x00p:pctx:CUcontext *" in d, "no self-description of cuCtxGetCurrent"
PY
}

case_trace_default_dir_nothing_traced() {
    # A command that makes no CUDA call: cutap says so and leaves no
    # directory of its own naming behind (an -o directory stays).
    (cd "$WORK" && mkdir -p nt0 && cd nt0 && "$CUTAP" trace -- true 2>"$WORK/nt0.err") || return 1
    grep -q '^cutap: no CUDA call was recorded (cutap-20[0-9-]* not kept)$' "$WORK/nt0.err" \
        && [ -z "$(ls -A "$WORK/nt0")" ] || { cat "$WORK/nt0.err" >&2; ls -A "$WORK/nt0" >&2; return 1; }
    "$CUTAP" trace -o "$WORK/nt0o" -- true 2>/dev/null && [ -d "$WORK/nt0o" ]
}

case_api_ids_by_name() {
    # Plugin ABI version 2: a plugin built against the ids of another build
    # (every id one higher, tests/tests.mk) that asks for cuCtxGetCurrent by
    # name sees exactly its 5 calls; the same plugin with the id compiled in
    # from those tables (what version 1 plugins did) sees none of them (so
    # the case can fail); a version 1 plugin is refused with a message and
    # the program runs as bare.
    CUTAP_PLUGINS=$T/abi_names.so LD_PRELOAD=$LIB $T/t_record many 5 >/dev/null 2>"$WORK/abi1.err" || return 1
    grep -qx 'abi-names: watched=5 other=0' "$WORK/abi1.err" || { cat "$WORK/abi1.err" >&2; return 1; }
    CUTAP_PLUGINS=$T/abi_numbers.so LD_PRELOAD=$LIB $T/t_record many 5 >/dev/null 2>"$WORK/abi2.err" || return 1
    grep -q '^abi-numbers: watched=0 ' "$WORK/abi2.err" || { cat "$WORK/abi2.err" >&2; return 1; }
    $T/t_record many 5 >"$WORK/abi3.want" 2>&1 || return 1
    CUTAP_PLUGINS=$T/api_v1.so LD_PRELOAD=$LIB $T/t_record many 5 >"$WORK/abi3.out" 2>"$WORK/abi3.err" || return 1
    grep -q "plugin $T/api_v1.so not used: it is of cutap API version 1" "$WORK/abi3.err" && ! grep -q 'init called' "$WORK/abi3.err" \
        && cmp -s "$WORK/abi3.want" "$WORK/abi3.out" || { cat "$WORK/abi3.err" >&2; return 1; }
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
    # variants), decoded arguments, the export table by name and a call
    # through it, and the summary table.
    for want in ' cuMemcpyHtoD_v2_ptds(' ' cuLaunchKernel_ptsz(' ' FAKE_SIZED#1(' '<FAKE_SIZED>' \
        'cuGetProcAddress_v2(symbol="cuMemAlloc", ' 'Time(%)' 'demo: driver version 13000' '1 process traced into'; do
        grep -qF -- "$want" "$WORK/demo.out" || { say "  demo output lacks '$want'"; cat "$WORK/demo.out" >&2; return 1; }
    done
}

# --- the recorder and the cutap command (issue #3) ----------------------
CUTAP=$B/cutap
# Calls per name in a trace, from `cutap report --format csv`, one name per
# call (a multiset, comparable with `called`).
report_names() {
    "$CUTAP" report --format csv "$1" | awk -F, 'NR > 1 { for (i = 0; i < $3; i++) print $2 }'
}
# Run a program under `cutap trace`; the report must count exactly the
# calls the program says it made, per name.
recorded_equal() {
    local name=$1; shift
    rm -rf "$WORK/$name.trace"
    "$CUTAP" trace -o "$WORK/$name.trace" -- "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" \
        || { say "  run under cutap trace failed:"; tail -5 "$WORK/$name.err" >&2; return 1; }
    called "$WORK/$name.out" >"$WORK/$name.called"
    [ -s "$WORK/$name.called" ] || { say "  the program reported no calls"; return 1; }
    report_names "$WORK/$name.trace" >"$WORK/$name.seen" || return 1
    same_counts "$WORK/$name.called" "$WORK/$name.seen"
}

for mode in plt procaddr hidden; do
    eval "case_trace_counts_$mode() { recorded_equal tr_$mode \$T/t_paths_pie $mode; }"
done
case_trace_counts_dlopen_local() { recorded_equal tr_dl $T/t_paths_now dlopen libcuda.so.1 local; }
case_trace_counts_threads_16() { recorded_equal tr_thr $T/t_threads; }
case_trace_counts_exec() { recorded_equal tr_exec $T/t_paths_pie exec; }
case_trace_counts_many_chunks() {
    # 30000 records: 8 chunks of 256 KiB, three file segments.
    recorded_equal tr_many $T/t_record many 30000
}
case_trace_counts_kernels() { recorded_equal tr_k $T/t_record kernels; }

case_trace_fork_two_files() {
    "$CUTAP" trace -o "$WORK/tf" -- $T/t_fork >"$WORK/tf.out" 2>&1 || { cat "$WORK/tf.out" >&2; return 1; }
    local parent child
    parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$WORK/tf.out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$WORK/tf.out")
    [ "$(ls "$WORK/tf" | wc -l)" = 2 ] || { say "  want 2 trace files:"; ls "$WORK/tf" >&2; return 1; }
    "$CUTAP" report --by process --format csv "$WORK/tf" >"$WORK/tf.csv" || return 1
    # columns: layer,name,calls,...,host,pid
    grep -q "^driver,cuMemAlloc_v2,3,0,.*,$child\$" "$WORK/tf.csv" && grep -q "^driver,cuInit,1,0,.*,$parent\$" "$WORK/tf.csv" \
        && grep -q "^driver,cuDriverGetVersion,1,0,.*,$parent\$" "$WORK/tf.csv" \
        && [ "$(grep -c '^driver' "$WORK/tf.csv")" = 3 ] || { cat "$WORK/tf.csv" >&2; return 1; }
}

case_trace_follows_shell_children() {
    # sh -> two programs (one in a pipeline): every process with CUDA calls
    # has its file; processes without CUDA calls (sh, cat) leave none.
    "$CUTAP" trace -o "$WORK/sh" -- sh -c "$T/t_paths_pie plt | cat >/dev/null; $T/t_record many 10 >/dev/null" \
        2>"$WORK/sh.err" || return 1
    [ "$(ls "$WORK/sh" | wc -l)" = 2 ] || { ls "$WORK/sh" >&2; return 1; }
    grep -q '2 processes traced into' "$WORK/sh.err"
}

case_trace_exit_status() {
    "$CUTAP" trace -o "$WORK/es1" -- sh -c 'exit 3' 2>/dev/null; [ $? = 3 ] || return 1
    "$CUTAP" trace -o "$WORK/es2" -- sh -c 'kill -TERM $$' 2>/dev/null; [ $? = 143 ] || return 1
    "$CUTAP" trace -o "$WORK/es3" -- "$WORK/no-such-program" 2>"$WORK/es3.err"; [ $? = 127 ] || return 1
    grep -q 'cannot run' "$WORK/es3.err" || return 1
    # An existing trace is never overwritten.
    "$CUTAP" trace -o "$WORK/es4" -- $T/t_record many 1 >/dev/null 2>&1 || return 1
    "$CUTAP" trace -o "$WORK/es4" -- true 2>"$WORK/es4.err"; [ $? = 1 ] && grep -q 'already holds a trace' "$WORK/es4.err"
}

case_trace_default_dir() {
    (cd "$WORK" && "$CUTAP" trace -- $T/t_record many 3 >/dev/null 2>"$WORK/dd.err") || return 1
    local d; d=$(sed -n 's/.*traced into \([^ ]*\) .*/\1/p' "$WORK/dd.err")
    [[ $d == cutap-20[0-9][0-9][01][0-9][0-3][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]* ]] && [ -d "$WORK/$d" ] \
        || { cat "$WORK/dd.err" >&2; return 1; }
}

case_trace_file_mode() {
    "$CUTAP" trace -o "$WORK/fm" -- $T/t_record many 3 >/dev/null 2>&1 || return 1
    [ "$(stat -c %a "$WORK/fm"/*.cutap)" = 600 ]
}

case_trace_killed_keeps_calls() {
    # SIGKILL, abort, a segfault and _exit after 5000 calls: all 5000 are
    # in the trace, and cutap exits with the program's status.
    local how want
    for how in kill:137 abort:134 segv:139 _exit:0; do
        want=${how#*:}; how=${how%:*}
        rm -rf "$WORK/die"
        "$CUTAP" trace -o "$WORK/die" -- $T/t_record die 5000 $how >/dev/null 2>&1
        local rc=$?
        [ $rc = "$want" ] || { say "  $how: exit $rc, want $want"; return 1; }
        "$CUTAP" report --format csv "$WORK/die" >"$WORK/die.csv" || return 1
        grep -q '^driver,cuCtxGetCurrent,5000,0,' "$WORK/die.csv" || { say "  $how:"; cat "$WORK/die.csv" >&2; return 1; }
    done
}

case_trace_killed_inside_a_call() {
    # Killed inside cuCtxSynchronize: every completed call is there, the
    # one in progress is shown as unfinished and not counted.
    FAKE_SYNC_DIES=1 "$CUTAP" trace -o "$WORK/di" -- $T/t_record die_inside 300 >/dev/null 2>&1; [ $? = 137 ] || return 1
    "$CUTAP" report --format csv "$WORK/di" >"$WORK/di.csv" || return 1
    grep -q '^driver,cuCtxGetCurrent,300,0,' "$WORK/di.csv" && grep -q '^driver,cuProfilerStart,1,0,' "$WORK/di.csv" \
        && grep -q '^driver,cuDriverGetVersion,1,0,' "$WORK/di.csv" && grep -q '^driver,cuCtxSynchronize,0,0,.*,1,0$' "$WORK/di.csv" \
        || { cat "$WORK/di.csv" >&2; return 1; }
    "$CUTAP" dump "$WORK/di" | tail -1 | grep -q ' cuCtxSynchronize() = ? <unfinished>$' || return 1
    "$CUTAP" report "$WORK/di" | grep -q '(+1 unfinished)'
}

case_trace_filter() {
    "$CUTAP" trace -o "$WORK/f1" -e 'cuMem*' -- $T/t_paths_pie plt >"$WORK/f1.out" 2>/dev/null || return 1
    called "$WORK/f1.out" | grep '^cuMem' >"$WORK/f1.called"
    report_names "$WORK/f1" >"$WORK/f1.seen" && same_counts "$WORK/f1.called" "$WORK/f1.seen" || return 1
    "$CUTAP" trace -o "$WORK/f2" -e 'layer=hidden' -- $T/t_paths_pie hidden >"$WORK/f2.out" 2>/dev/null || return 1
    called "$WORK/f2.out" | grep '#' >"$WORK/f2.called"
    report_names "$WORK/f2" >"$WORK/f2.seen" && same_counts "$WORK/f2.called" "$WORK/f2.seen" || return 1
    "$CUTAP" trace -o "$WORK/f3" -e '!cuMem*,!layer=hidden' -- $T/t_paths_pie hidden >"$WORK/f3.out" 2>/dev/null || return 1
    called "$WORK/f3.out" | grep -v -e '^cuMem' -e '#' >"$WORK/f3.called"
    report_names "$WORK/f3" >"$WORK/f3.seen" && same_counts "$WORK/f3.called" "$WORK/f3.seen" || return 1
    "$CUTAP" trace -o "$WORK/f4" -e 'layer=bogus' -- true 2>"$WORK/f4.err"; [ $? = 2 ] && grep -q 'layer= takes' "$WORK/f4.err" || return 1
    "$CUTAP" trace -o "$WORK/f5" -e 'cuMem*,' -- true 2>"$WORK/f5.err"; [ $? = 2 ] && grep -q 'empty term' "$WORK/f5.err" || return 1
    # The library, given the same language directly, refuses the same way,
    # in the directory's registry, not on the program's stderr; no trace.
    CUTAP_FILTER='cuMem*,layer=bogus' CUTAP_TRACE=$WORK/f6 LD_PRELOAD=$LIB $T/t_record many 2 >/dev/null 2>"$WORK/f6.err" || return 1
    reg_says "$WORK/f6" "invalid filter 'cuMem\*,layer=bogus': layer= takes driver, hidden, runtime, cublas, .*, nvtx" \
        && [ ! -s "$WORK/f6.err" ] && ! ls "$WORK/f6"/*.cutap 2>/dev/null
}

case_fast_paths_same_records() {
    # The generated fast paths (gen/fastpath_generator.py, the default),
    # the fused path in dispatch alone (CUTAP_NO_FASTPATH=1) and the
    # callbacks (CUTAP_NO_FUSED=1) write the same records (dumped, times
    # and thread ids aside; the same environment size, so the same stack
    # addresses) and, in counting mode, the same counts, errors, timed and
    # sampled calls, on the driver (errors, outputs, launches with kernel
    # names) and on the layers of the fakes.
    local norand="setarch $(uname -m) -R" k mode m
    $norand true 2>/dev/null || norand=""
    local envs=("CUTAP_NO_FASTPATH=0 CUTAP_NO_FUSED=0" "CUTAP_NO_FASTPATH=1 CUTAP_NO_FUSED=0" "CUTAP_NO_FASTPATH=0 CUTAP_NO_FUSED=1")
    for k in 0 1 2; do
        rm -rf "$WORK/fp$k" "$WORK/fpc$k"
        for mode in errors kernels "many 200"; do
            env ${envs[$k]} CUTAP_TRACE="$WORK/fp$k" LD_PRELOAD=$LIB $norand $T/t_record $mode >/dev/null || return 1
        done
        env ${envs[$k]} EXPECT_CUTAP=1 CUTAP_TRACE="$WORK/fp$k" LD_PRELOAD=$LIB LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH \
            $norand $T/t_libs_now link >/dev/null || return 1
        # (stack addresses in calls made inside calls: the frames below
        # them differ from path to path)
        "$CUTAP" dump "$WORK/fp$k" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/ <[^>]*>$//; s/0x7ffffff[0-9a-f]*/STACK/g' >"$WORK/fp$k.txt" || return 1
        for m in "many 3000" "mix 2000" errors; do
            env ${envs[$k]} CUTAP_STAT_SEED=12345 CUTAP_STAT_SLOW_NS=1000000000 CUTAP_COUNT="$WORK/fpc$k" LD_PRELOAD=$LIB \
                $T/t_record $m >/dev/null || return 1
        done
        "$CUTAP" report --format csv "$WORK/fpc$k" | awk -F, 'NR > 1 { print $2, $3, $4, $12 }' | sort >"$WORK/fpc$k.txt" || return 1
    done
    [ "$(wc -l <"$WORK/fp0.txt")" -gt 200 ] || { say "  too few records"; return 1; }
    for k in 1 2; do
        diff "$WORK/fp0.txt" "$WORK/fp$k.txt" >&2 || { say "  records differ from those with ${envs[$k]}"; return 1; }
        diff "$WORK/fpc0.txt" "$WORK/fpc$k.txt" >&2 || { say "  counters differ from those with ${envs[$k]}"; return 1; }
    done
}

case_fused_path_same_records() {
    # The recorder's fused path and its callbacks (taken when another
    # client is present; forced here) write the same records.
    # (without address randomisation: the records hold stack addresses)
    rm -rf "$WORK/fu1" "$WORK/fu2"
    local norand="setarch $(uname -m) -R"
    $norand true 2>/dev/null || norand=""
    for mode in errors kernels; do
        CUTAP_NO_FUSED=0 CUTAP_TRACE=$WORK/fu1 LD_PRELOAD=$LIB $norand $T/t_record $mode >/dev/null || return 1
        CUTAP_NO_FUSED=1 CUTAP_TRACE=$WORK/fu2 LD_PRELOAD=$LIB $norand $T/t_record $mode >/dev/null || return 1
    done
    "$CUTAP" dump "$WORK/fu1" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/ <[^>]*>$//' >"$WORK/fu1.txt" || return 1
    "$CUTAP" dump "$WORK/fu2" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/ <[^>]*>$//' >"$WORK/fu2.txt" || return 1
    [ -s "$WORK/fu1.txt" ] && diff "$WORK/fu1.txt" "$WORK/fu2.txt" >&2 || return 1
    # Counting mode: the same calls, errors and timed calls on both paths
    # (with the same countdowns, CUTAP_STAT_SEED, and no id made slow by a
    # passing stall, CUTAP_STAT_SLOW_NS), so the same rule.
    local nf m
    for nf in 0 1; do
        rm -rf "$WORK/fc$nf"
        for m in "many 3000" "mix 2000" errors; do
            CUTAP_STAT_SEED=12345 CUTAP_STAT_SLOW_NS=1000000000 CUTAP_NO_FUSED=$nf CUTAP_COUNT=$WORK/fc$nf LD_PRELOAD=$LIB \
                $T/t_record $m >/dev/null || return 1
        done
        "$CUTAP" report --format csv "$WORK/fc$nf" | awk -F, 'NR > 1 { print $2, $3, $4, $12 }' | sort >"$WORK/fc$nf.txt" || return 1
        # and, from the files, the counters' calls, errors, timed, sampled per id
        python3 - "$WORK/fc$nf" >>"$WORK/fc$nf.txt" <<'PY' || return 1
import glob, struct, sys
sums = {}
for f in glob.glob(sys.argv[1] + "/*.cutap"):
    d = open(f, "rb").read()
    cs = struct.unpack_from("<I", d, 16)[0]
    for c in range(4096, len(d) - cs + 1, cs):
        magic, typ = struct.unpack_from("<IH", d, c)
        if magic == 0x4b4e4843 and typ == 2:
            first = struct.unpack_from("<I", d, c + 32)[0]
            for i in range((cs - 64) // 64):
                calls, errors, total, mn, mx, timed, sampled, st = struct.unpack_from("<8Q", d, c + 64 + 64 * i)
                if calls:
                    s = sums.setdefault(first + i, [0, 0, 0, 0])
                    for k, v in enumerate((calls, errors, timed, sampled)):
                        s[k] += v
        elif magic == 0x4b4e4843 and typ == 3:   # version 3: counter entries, 128 bytes
            for e in range(c + 64, c + cs - 127, 128):
                emagic, tid, eid = struct.unpack_from("<IiI", d, e)
                calls, errors, total, mn, mx, timed, sampled, st = struct.unpack_from("<8Q", d, e + 64)
                if emagic == 0x544e4543 and calls:
                    s = sums.setdefault(eid, [0, 0, 0, 0])
                    for k, v in enumerate((calls, errors, timed, sampled)):
                        s[k] += v
for i in sorted(sums):
    print("id", i, *sums[i])
PY
    done
    awk '$1 == "cuCtxGetCurrent" && $4 < $2 {ok=1} END {exit !ok}' "$WORK/fc0.txt" || { cat "$WORK/fc0.txt" >&2; return 1; }
    awk '$1 == "id" && $6 > 0 {ok=1} END {exit !ok}' "$WORK/fc0.txt" || { say "  no sampled calls"; cat "$WORK/fc0.txt" >&2; return 1; }
    diff "$WORK/fc0.txt" "$WORK/fc1.txt" >&2
}

case_stat_command() {
    "$CUTAP" stat -- $T/t_paths_now plt >/dev/null 2>"$WORK/st.err" || { cat "$WORK/st.err" >&2; return 1; }
    # cuMemAlloc_v2: 2 calls, 1 error; the table goes to stderr.
    awk '$NF == "cuMemAlloc_v2" && $3 == 2 && $4 == 1 {ok=1} END {exit !ok}' "$WORK/st.err" \
        || { cat "$WORK/st.err" >&2; return 1; }
    "$CUTAP" stat -o "$WORK/st.txt" -- $T/t_threads >/dev/null 2>&1 || return 1
    awk '$NF == "cuCtxGetCurrent" && $3 == 8000 {ok=1} END {exit !ok}' "$WORK/st.txt" || { cat "$WORK/st.txt" >&2; return 1; }
    "$CUTAP" stat -- sh -c 'exit 5' 2>/dev/null; [ $? = 5 ]
}

# --- counting mode: which calls are timed ------------------------------------
# Fields of a report CSV row: stat_row FILE NAME -> "calls errors total avg min max timed"
stat_row() { awk -F, -v n="$2" '$2 == n { print $3, $4, $5, $6, $7, $8, $12 }' "$1"; }

case_stat_sampling_keeps_counts() {
    # 30000 cheap calls, then 3000 rounds of three ids (one always
    # failing): calls and errors exact on both paths, few calls timed, and
    # the estimated total between calls * min and calls * max. (No id is
    # made slow by a stall of the machine: CUTAP_STAT_SLOW_NS; slow ids
    # are stat_slow_calls_all_timed's.)
    local nf d calls errors total avg min max timed
    for nf in 0 1; do
        d=$WORK/ss$nf; rm -rf "$d"
        CUTAP_STAT_SLOW_NS=1000000000 CUTAP_NO_FUSED=$nf CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record many 30000 >"$d.out1" || return 1
        CUTAP_STAT_SLOW_NS=1000000000 CUTAP_NO_FUSED=$nf CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record mix 3000 >"$d.out2" || return 1
        cat "$d.out1" "$d.out2" >"$d.out"
        called "$d.out" >"$d.called"
        "$CUTAP" report --format csv "$d" >"$d.csv" || return 1
        awk -F, 'NR > 1 { for (i = 0; i < $3; i++) print $2 }' "$d.csv" >"$d.seen"
        same_counts "$d.called" "$d.seen" || return 1
        read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuCtxGetCurrent)"
        [ "$calls" = 33000 ] && [ "$errors" = 0 ] || { cat "$d.csv" >&2; return 1; }
        # The countdown reaches zero at least once every 63 calls of a
        # thread; the first 16 calls of an id in a process are timed too;
        # far fewer than all.
        [ "$timed" -ge $((33000 / 63)) ] && [ "$timed" -le $((33000 / 4)) ] \
            || { say "  NO_FUSED=$nf: cuCtxGetCurrent timed $timed of 33000"; return 1; }
        # (min may be 0: a fake call timed by two TSC reads a few ticks
        # apart converts to less than 1 ns.)
        [ "$min" -ge 0 ] && [ "$max" -gt 0 ] && [ "$total" -ge $((calls * min)) ] && [ "$total" -le $((calls * max)) ] \
            || { say "  NO_FUSED=$nf: total $total not within calls * min and calls * max"; cat "$d.csv" >&2; return 1; }
        read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuGetErrorName)"
        [ "$calls" = 3000 ] && [ "$errors" = 3000 ] && [ "$timed" -lt 3000 ] || { cat "$d.csv" >&2; return 1; }
    done
    # An id with fewer than 16 calls: every call timed, whatever its time.
    rm -rf "$WORK/ss2"
    CUTAP_COUNT=$WORK/ss2 LD_PRELOAD=$LIB $T/t_record many 15 >/dev/null || return 1
    CUTAP_COUNT=$WORK/ss2 LD_PRELOAD=$LIB $T/t_record errors >/dev/null || return 1
    "$CUTAP" report --format csv "$WORK/ss2" >"$WORK/ss2.csv" || return 1
    [ "$(awk -F, 'NR > 1 && $12 == $3' "$WORK/ss2.csv" | wc -l)" = 4 ] && grep -q '^driver,cuCtxGetCurrent,15,0,.*,15$' "$WORK/ss2.csv" \
        || { say "  calls of rare ids not all timed:"; cat "$WORK/ss2.csv" >&2; return 1; }
    # The text table marks estimated totals and says how many calls were timed.
    "$CUTAP" report "$WORK/ss0" >"$WORK/ss.txt" || return 1
    awk '$NF == "cuCtxGetCurrent" && $2 ~ /^~[0-9]+$/ && $3 == 33000 {ok=1} END {exit !ok}' "$WORK/ss.txt" \
        || { cat "$WORK/ss.txt" >&2; return 1; }
    local n; n=$(awk -F, 'NR > 1 && $12 < $3 { c += $3; t += $12 } END { print t " of " c }' "$WORK/ss0.csv")
    grep -qx "~ estimated from $n calls timed" "$WORK/ss.txt" || { say "  no footnote '$n'"; cat "$WORK/ss.txt" >&2; return 1; }
    # The exports carry timed.
    "$CUTAP" export --format jsonl -o "$WORK/ss.jsonl" "$WORK/ss0" || return 1
    python3 - "$WORK/ss.jsonl" <<'PY' || return 1
import json, sys
c = {}
for x in map(json.loads, open(sys.argv[1])):
    if x["type"] == "counter":
        s = c.setdefault(x["name"], {"calls": 0, "errors": 0, "timed": 0})
        for k in s:
            s[k] += x[k]
assert c["cuCtxGetCurrent"]["calls"] == 33000 and 0 < c["cuCtxGetCurrent"]["timed"] < 33000, c
assert c["cuGetErrorName"]["errors"] == 3000, c
PY
    "$CUTAP" export --format sqlite -o "$WORK/ss.sqlite" "$WORK/ss0" 2>/dev/null || return 0   # no libsqlite3
    python3 - "$WORK/ss.sqlite" <<'PY'
import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("select sum(calls), sum(timed), sum(errors) from counters").fetchone()
assert r[0] == 33000 + 6000 and 0 < r[1] < r[0] and r[2] == 3000, r
PY
}

case_stat_slow_calls_all_timed() {
    # cuDriverGetVersion takes 2 us (FAKE_SLOW): every call of it is timed
    # and its total is exact; the cheap calls beside it are sampled.
    local nf d calls errors total avg min max timed
    for nf in 0 1; do
        d=$WORK/sl$nf; rm -rf "$d"
        FAKE_SLOW=cuDriverGetVersion CUTAP_NO_FUSED=$nf CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record mix 3000 >/dev/null || return 1
        "$CUTAP" report --format csv "$d" >"$d.csv" || return 1
        read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuDriverGetVersion)"
        [ "$calls" = 3000 ] && [ "$timed" = 3000 ] && [ "$min" -ge 2000 ] && [ "$total" -ge 6000000 ] \
            || { say "  NO_FUSED=$nf:"; cat "$d.csv" >&2; return 1; }
        read -r calls errors total avg min max timed <<<"$(stat_row "$d.csv" cuCtxGetCurrent)"
        [ "$calls" = 3000 ] && [ "$timed" -lt 3000 ] || { say "  NO_FUSED=$nf:"; cat "$d.csv" >&2; return 1; }
    done
    "$CUTAP" report "$WORK/sl0" >"$WORK/sl.txt" || return 1
    awk '$NF == "cuDriverGetVersion" && $2 ~ /^[0-9]+$/ {ok=1} END {exit !ok}' "$WORK/sl.txt" \
        || { say "  an exact total is marked estimated"; cat "$WORK/sl.txt" >&2; return 1; }
}

case_stat_time_all() {
    # CUTAP_STAT_TIMING=all and `cutap stat --time-all`: every call timed.
    local d=$WORK/ta
    rm -rf "$d"
    CUTAP_STAT_TIMING=all CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_record mix 3000 >/dev/null || return 1
    CUTAP_STAT_TIMING=all CUTAP_COUNT=$d LD_PRELOAD=$LIB $T/t_threads >/dev/null || return 1
    "$CUTAP" report --format csv "$d" >"$d.csv" || return 1
    [ "$(awk -F, 'NR > 1 && $12 == $3 && $3 >= 3000' "$d.csv" | wc -l)" = 4 ] && [ "$(sed 1d "$d.csv" | wc -l)" = 4 ] \
        || { cat "$d.csv" >&2; return 1; }
    "$CUTAP" stat --time-all -o "$WORK/ta.txt" -- $T/t_record many 30000 >/dev/null || return 1
    awk '$NF == "cuCtxGetCurrent" && $2 ~ /^[0-9]+$/ && $3 == 30000 {ok=1} END {exit !ok}' "$WORK/ta.txt" \
        && ! grep -q estimated "$WORK/ta.txt" || { cat "$WORK/ta.txt" >&2; return 1; }
    # The default (here said: sample) times fewer.
    CUTAP_STAT_TIMING=sample "$CUTAP" stat -o "$WORK/ta2.txt" -- $T/t_record many 30000 >/dev/null || return 1
    grep -q '^~ estimated from [0-9]* of 30000 calls timed$' "$WORK/ta2.txt" || { cat "$WORK/ta2.txt" >&2; return 1; }
    # Bad values: refused by the command before it runs anything, and by
    # the library, which then records nothing.
    CUTAP_STAT_TIMING=most "$CUTAP" stat -- $T/t_record many 3 >"$WORK/ta3.out" 2>"$WORK/ta3.err"; [ $? = 2 ] || return 1
    grep -q "invalid CUTAP_STAT_TIMING 'most': takes all or sample" "$WORK/ta3.err" && [ ! -s "$WORK/ta3.out" ] \
        || { cat "$WORK/ta3.err" >&2; return 1; }
    CUTAP_STAT_TIMING=most CUTAP_COUNT=$WORK/ta4 LD_PRELOAD=$LIB $T/t_record many 3 >/dev/null 2>"$WORK/ta4.err" || return 1
    reg_says "$WORK/ta4" "invalid CUTAP_STAT_TIMING 'most': takes all or sample; nothing is recorded" \
        && [ ! -s "$WORK/ta4.err" ] && ! ls "$WORK/ta4"/*.cutap 2>/dev/null || { cat "$WORK/ta4.err" >&2; return 1; }
    "$CUTAP" trace --time-all -o "$WORK/ta5" -- true 2>"$WORK/ta5.err"; [ $? = 2 ] && grep -q 'option of cutap stat' "$WORK/ta5.err"
}

# Sets the one counter of a counting-mode file with 100 calls to the
# values given (calls errors total min max timed sampled sampled_total).
set_counter() {
    python3 - "$@" <<'PY'
import struct, sys
f, vals = sys.argv[1], [int(v) for v in sys.argv[2:]]
d = bytearray(open(f, "rb").read())
assert struct.unpack_from("<I", d, 8)[0] in (2, 3, 4)
cs = struct.unpack_from("<I", d, 16)[0]
hits = 0
for c in range(4096, len(d), cs):
    magic, typ = struct.unpack_from("<IH", d, c)
    if magic != 0x4b4e4843 or typ not in (2, 3):
        continue
    # type 2: one 64-byte counter per id; type 3: 128-byte entries whose
    # second slot is the counter (its magic "CENT" first)
    step, at = (64, 0) if typ == 2 else (128, 64)
    for off in range(c + 64, c + cs - step + 1, step):
        if typ == 3 and struct.unpack_from("<I", d, off)[0] != 0x544e4543:
            continue
        if struct.unpack_from("<Q", d, off + at)[0] == 100:
            struct.pack_into("<8Q", d, off + at, *vals)
            hits += 1
assert hits == 1, hits
open(f, "wb").write(d)
PY
}

case_stat_estimate() {
    # The estimate of a counter, from a file whose counter is set by hand
    # (clock ns: ticks are ns): 1000 calls, 47 timed, 31 of them by the
    # countdown alone (3100 ns), the 16 others exactly (46900 ns, a slow
    # first call among them): 46900 + 3100 * (1000 - 16) / 31 = 145300,
    # not 50000 * 1000 / 47.
    rm -rf "$WORK/es" "$WORK/es0"
    CUTAP_CLOCK=ns CUTAP_COUNT=$WORK/es LD_PRELOAD=$LIB $T/t_record many 100 >/dev/null || return 1
    cp -r "$WORK/es" "$WORK/es0"
    set_counter "$WORK"/es/*.cutap 1000 3 50000 10 20000 47 31 3100 || return 1
    "$CUTAP" report --format csv "$WORK/es" >"$WORK/es.csv" || return 1
    grep -qx 'driver,cuCtxGetCurrent,1000,3,145300,145,10,20000,,100.00,0,47' "$WORK/es.csv" || { cat "$WORK/es.csv" >&2; return 1; }
    "$CUTAP" report "$WORK/es" | grep -qx '~ estimated from 47 of 1000 calls timed' || return 1
    # No sample at all: the 984 calls timed by neither rule count as the
    # fastest timed call (10 ns): 46900 + 10 * 984 = 56740, not the slow
    # first calls scaled up (46900 * 1000 / 16 = 2931250).
    set_counter "$WORK"/es0/*.cutap 1000 0 46900 10 20000 16 0 0 || return 1
    "$CUTAP" report --format csv "$WORK/es0" | grep -qx 'driver,cuCtxGetCurrent,1000,0,56740,56,10,20000,,100.00,0,16' \
        || { "$CUTAP" report --format csv "$WORK/es0" >&2; return 1; }
}

case_reader_version1_files() {
    # Files of format version 1 (40-byte counters, every call timed),
    # written by cutap 4f15382 (tests/fixtures/README), are still read.
    mkdir -p "$WORK/v1c" "$WORK/v1t"
    gzip -dc tests/fixtures/v1-count.cutap.gz >"$WORK/v1c/vm.1.cutap" || return 1
    gzip -dc tests/fixtures/v1-trace.cutap.gz >"$WORK/v1t/vm.2.cutap" || return 1
    [ "$(od -An -tu4 -j8 -N4 "$WORK/v1c/vm.1.cutap" | tr -d ' ')" = 1 ] || { say "  not a version 1 file"; return 1; }
    "$CUTAP" report --format csv "$WORK/v1c" >"$WORK/v1c.csv" || return 1
    diff - "$WORK/v1c.csv" >&2 <<'CSV' || return 1
layer,name,calls,errors,total_ns,avg_ns,min_ns,max_ns,med_ns,time_pct,unfinished,timed
driver,cuMemAlloc_v2,3,2,5998,1999,63,5858,,77.28,0,3
driver,cuDriverGetVersion,1,0,1052,1052,1052,1052,,13.55,0,1
driver,cuGetErrorName,2,1,711,355,57,654,,9.16,0,2
CSV
    "$CUTAP" report "$WORK/v1c" >"$WORK/v1c.txt" && ! grep -q '~' "$WORK/v1c.txt" || return 1
    "$CUTAP" report --format csv "$WORK/v1t" | grep -qx 'driver,cuMemAlloc_v2,3,2,4381,1460,35,4281,65,82.72,0,3' || return 1
    "$CUTAP" dump "$WORK/v1t" | grep -q ' cuGetErrorName(error=CUDA_ERROR_INVALID_VALUE, pStr=0x[0-9a-f]*→"CUDA_ERROR_INVALID_VALUE") = CUDA_SUCCESS'
}

case_report_formats() {
    "$CUTAP" trace -o "$WORK/rf" -- $T/t_record errors >/dev/null 2>&1 || return 1
    "$CUTAP" report --format csv "$WORK/rf" >"$WORK/rf.csv" || return 1
    local hdr=layer,name,calls,errors,total_ns,avg_ns,min_ns,max_ns,med_ns,time_pct,unfinished,timed
    [ "$(head -1 "$WORK/rf.csv")" = "$hdr" ] || { say "  header: $(head -1 "$WORK/rf.csv")"; return 1; }
    [ "$("$CUTAP" report --by process --format csv "$WORK/rf" | head -1)" = "$hdr,host,pid" ] || return 1
    [ "$("$CUTAP" report --by thread --format csv "$WORK/rf" | head -1)" = "$hdr,host,pid,tid" ] || return 1
    [ "$("$CUTAP" report --by rank --format csv "$WORK/rf" | head -1)" = "$hdr,rank" ] || return 1
    # call records: every call is timed (timed = calls)
    grep -q '^driver,cuMemAlloc_v2,3,2,.*,0,3$' "$WORK/rf.csv" && grep -q '^driver,cuGetErrorName,2,1,.*,0,2$' "$WORK/rf.csv" \
        || { cat "$WORK/rf.csv" >&2; return 1; }
    "$CUTAP" report --format json "$WORK/rf" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = {r["name"]: r for r in d["rows"]}
assert d["calls"] == 6 and rows["cuMemAlloc_v2"]["errors"] == 2, d
assert all(r["timed"] == r["calls"] for r in d["rows"]), d
assert list(rows["cuMemAlloc_v2"])[10:12] == ["unfinished", "timed"], rows' || return 1
    "$CUTAP" report "$WORK/rf" | grep -q 'cuDriverGetVersion' || return 1
    "$CUTAP" report --format xml "$WORK/rf" 2>/dev/null; [ $? = 2 ]
}

case_report_by_rank_merges() {
    for r in 0 1 2; do
        RANK=$r "$CUTAP" trace -o "$WORK/rk$r" -- $T/t_record many $((r + 1)) >/dev/null 2>&1 || return 1
    done
    mkdir -p "$WORK/rk"; cp "$WORK"/rk[0-9]/*.cutap "$WORK/rk/" 2>/dev/null
    # copies of one host's files may share names: then copy under new names
    [ "$(ls "$WORK/rk" | wc -l)" = 3 ] || { for r in 0 1 2; do cp "$WORK/rk$r"/*.cutap "$WORK/rk/r$r.cutap"; done; }
    "$CUTAP" report --by rank --format csv "$WORK/rk" >"$WORK/rk.csv" || return 1
    for r in 0 1 2; do grep -q "^driver,cuCtxGetCurrent,$((r + 1)),0,.*,$r\$" "$WORK/rk.csv" || { cat "$WORK/rk.csv" >&2; return 1; }; done
    "$CUTAP" report --format csv "$WORK/rk" | grep -q '^driver,cuCtxGetCurrent,6,0,'
}

case_reader_rejects_bad_files() {
    "$CUTAP" trace -o "$WORK/rb" -- $T/t_record many 100 >/dev/null 2>&1 || return 1
    local f; f=$(ls "$WORK/rb"/*.cutap)
    mkdir -p "$WORK/bad"
    # a future version
    cp "$f" "$WORK/bad/v.cutap"; printf '\x09\x00\x00\x00' | dd of="$WORK/bad/v.cutap" bs=1 seek=8 conv=notrunc 2>/dev/null
    "$CUTAP" report "$WORK/bad/v.cutap" >/dev/null 2>"$WORK/v.err"; [ $? = 1 ] || return 1
    grep -q 'version 9 is not supported' "$WORK/v.err" || { cat "$WORK/v.err" >&2; return 1; }
    # not a trace; shorter than a header; an empty directory
    head -c 5000 /dev/urandom >"$WORK/bad/r.cutap"
    "$CUTAP" report "$WORK/bad/r.cutap" 2>"$WORK/r.err" >/dev/null; [ $? = 1 ] && grep -q 'bad magic' "$WORK/r.err" || return 1
    head -c 100 "$f" >"$WORK/bad/s.cutap"
    "$CUTAP" dump "$WORK/bad/s.cutap" 2>"$WORK/s.err" >/dev/null; [ $? = 1 ] && grep -q 'shorter than the header' "$WORK/s.err" || return 1
    mkdir -p "$WORK/empty"; "$CUTAP" report "$WORK/empty" 2>"$WORK/e.err"; [ $? = 1 ] && grep -q 'no trace files' "$WORK/e.err" || return 1
    # a damaged record: a message, the records before it kept
    cp "$f" "$WORK/bad/d.cutap"; printf '\x07' | dd of="$WORK/bad/d.cutap" bs=1 seek=$((4096 + 64 * 50)) conv=notrunc 2>/dev/null
    "$CUTAP" report --format csv "$WORK/bad/d.cutap" >"$WORK/d.csv" 2>"$WORK/d.err"; [ $? = 1 ] || return 1
    grep -q 'unknown record kind' "$WORK/d.err" && grep -q '^driver,cuCtxGetCurrent,4[0-9],0' "$WORK/d.csv" \
        || { cat "$WORK/d.err" "$WORK/d.csv" >&2; return 1; }
}

case_dump_decodes() {
    "$CUTAP" trace -o "$WORK/dd" -- $T/t_record errors >/dev/null 2>&1 || return 1
    "$CUTAP" trace -o "$WORK/dd2" -- $T/t_record kernels >/dev/null 2>&1 || return 1
    cp "$WORK"/dd2/*.cutap "$WORK/dd/k.cutap"   # a second process in the directory
    "$CUTAP" dump "$WORK/dd" >"$WORK/dd.txt" || return 1
    local pat
    while IFS= read -r pat; do
        grep -qE -- "$pat" "$WORK/dd.txt" || { say "  no line matches: $pat"; cat "$WORK/dd.txt" >&2; return 1; }
    done <<'EOF'
^[0-9]+\.[0-9]{6} \[[0-9]+/[0-9]+\] cuMemAlloc_v2\(dptr=NULL, bytesize=16\) = CUDA_ERROR_INVALID_VALUE \(1\) <[0-9.]+ [nu]s>$
 cuMemAlloc_v2\(dptr=0x[0-9a-f]+, bytesize=0\) = CUDA_ERROR_INVALID_VALUE \(1\)
 cuMemAlloc_v2\(dptr=0x[0-9a-f]+→0x7f[0-9a-f]+, bytesize=4096\) = CUDA_SUCCESS
 cuGetErrorName\(error=CUDA_ERROR_INVALID_VALUE, pStr=0x[0-9a-f]+→"CUDA_ERROR_INVALID_VALUE"\) = CUDA_SUCCESS
 cuDriverGetVersion\(driverVersion=0x[0-9a-f]+→13000\) = CUDA_SUCCESS
 cuModuleGetFunction\(hfunc=0x[0-9a-f]+→0xf0000000<vecadd\(float\*, float\*, int\)>, hmod=0x1000, name="_Z6vecaddPfS_i"\)
 cuLaunchKernel\(f=0xf0000000<vecadd\(float\*, float\*, int\)>, gridDimX=128, gridDimY=1, gridDimZ=1, blockDimX=256,
 cuLaunchKernel\(f=0xf0000100<plain_kernel>, .*sharedMemBytes=64, hStream=0x5000,
EOF
    # --no-demangle keeps the mangled name; --pid selects one process
    "$CUTAP" dump --no-demangle "$WORK/dd" | grep -q 'f=0xf0000000<_Z6vecaddPfS_i>' || return 1
    local pid; pid=$(grep -m1 ' cuLaunchKernel(' "$WORK/dd.txt" | sed 's/.*\[\([0-9]*\)\/.*/\1/')
    [ "$("$CUTAP" dump --pid "$pid" "$WORK/dd" | grep -c .)" = 7 ] || { say "  --pid $pid"; return 1; }
    "$CUTAP" dump --pid 1 "$WORK/dd" >/dev/null 2>&1; [ $? = 1 ]
}

case_trace_no_kernel_names() {
    # CUTAP_KERNEL_NAMES=0: the recorder asks the driver nothing itself, so
    # launches keep their handle only (the same run names them otherwise).
    CUTAP_KERNEL_NAMES=0 "$CUTAP" trace -o "$WORK/nk" -- $T/t_record kernels >/dev/null 2>&1 || return 1
    "$CUTAP" dump "$WORK/nk" >"$WORK/nk.txt" || return 1
    grep -q ' cuLaunchKernel(f=0xf0000000, gridDimX=128' "$WORK/nk.txt" || { cat "$WORK/nk.txt" >&2; return 1; }
    ! grep -q '<vecadd' "$WORK/nk.txt" || { say "  a kernel was named"; return 1; }
    "$CUTAP" trace -o "$WORK/nk2" -- $T/t_record kernels >/dev/null 2>&1 || return 1
    "$CUTAP" dump "$WORK/nk2" | grep -q ' cuLaunchKernel(f=0xf0000000<vecadd(float\*, float\*, int)>'
}

case_report_tree_and_parents() {
    # cuProfilerStart (fake) calls cuDriverGetVersion: the tree puts it
    # under its caller, the exports name the caller as parent.
    "$CUTAP" trace -o "$WORK/rt" -- $T/t_paths_pie nested >/dev/null 2>&1 || return 1
    "$CUTAP" report --tree "$WORK/rt" >"$WORK/rt.txt" || return 1
    grep -qE '^ +1 +[0-9]+ +[0-9]+ driver  cuProfilerStart$' "$WORK/rt.txt" \
        && grep -qE '^ +1 +[0-9]+ +[0-9]+ driver    cuDriverGetVersion$' "$WORK/rt.txt" || { cat "$WORK/rt.txt" >&2; return 1; }
    "$CUTAP" report --tree --format csv "$WORK/rt" >"$WORK/rt.csv" || return 1
    [ "$(head -1 "$WORK/rt.csv")" = path,layer,name,depth,calls,total_ns,self_ns,unfinished ] || return 1
    # self time of the caller = its total minus the callee's
    awk -F, '$3=="cuProfilerStart" {t=$6; s=$7} $3=="cuDriverGetVersion" && $1=="cuProfilerStart > cuDriverGetVersion" {c=$6; ok=($4==1)}
             END {exit !(ok && t == s + c)}' "$WORK/rt.csv" || { cat "$WORK/rt.csv" >&2; return 1; }
    "$CUTAP" report --tree --by thread "$WORK/rt" >/dev/null 2>&1; [ $? = 2 ] || return 1
    command -v python3 >/dev/null || return 0
    "$CUTAP" export --format sqlite -o "$WORK/rt.db" "$WORK/rt" || return 1
    "$CUTAP" export --format jsonl -o "$WORK/rt.jsonl" "$WORK/rt" || return 1
    "$CUTAP" report --tree --format json "$WORK/rt" >"$WORK/rt.json" || return 1
    python3 - "$WORK/rt.db" "$WORK/rt.jsonl" "$WORK/rt.json" <<'PY' || return 1
import json, sqlite3, sys
tree = {n["id"]: n for n in json.load(open(sys.argv[3]))}
inner = [n for n in tree.values() if n["name"] == "cuDriverGetVersion" and n["depth"] == 1]
assert len(inner) == 1 and tree[inner[0]["parent"]]["name"] == "cuProfilerStart", tree
outer = tree[inner[0]["parent"]]
assert outer["self_ns"] == outer["total_ns"] - inner[0]["total_ns"], tree
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT c.id, c.name, c.parent_id, c.depth, p.name FROM calls_named c "
                  "LEFT JOIN calls_named p ON p.id = c.parent_id").fetchall()
nested = [r for r in rows if r[1] == "cuDriverGetVersion" and r[3] == 1]
assert len(nested) == 1 and nested[0][4] == "cuProfilerStart", rows
assert all(r[2] is None for r in rows if r[3] == 0), rows
lines = [json.loads(l) for l in open(sys.argv[2]) if '"call"' in l]
byid = {l["id"]: l for l in lines}
inner = [l for l in lines if l["name"] == "cuDriverGetVersion" and l["depth"] == 1]
assert len(inner) == 1 and byid[inner[0]["parent"]]["name"] == "cuProfilerStart", inner
PY
    # The caller left out by a filter: the inner call has no known parent.
    "$CUTAP" trace -o "$WORK/rt2" -e '!cuProfilerStart' -- $T/t_paths_pie nested >/dev/null 2>&1 || return 1
    local all top
    all=$("$CUTAP" report --format csv "$WORK/rt2" | awk -F, '$2=="cuDriverGetVersion" {print $3}')
    top=$("$CUTAP" report --tree --format csv "$WORK/rt2" | awk -F, '$1=="cuDriverGetVersion" {print $5}')
    [ -n "$all" ] && [ "$all" = "$top" ] && ! "$CUTAP" report --tree --format csv "$WORK/rt2" | grep -q ' > ' \
        || { say "  filtered caller: $all calls, $top at the top"; return 1; }
}

case_dump_nesting_indent() {
    # cuProfilerStart (fake) calls cuDriverGetVersion: one level deeper.
    "$CUTAP" trace -o "$WORK/dn" -- $T/t_paths_pie nested >/dev/null 2>&1 || return 1
    "$CUTAP" dump "$WORK/dn" | grep -A1 ' cuProfilerStart()' | tail -1 | grep -q '\]   cuDriverGetVersion('
}

case_export_formats() {
    command -v python3 >/dev/null || return 77
    "$CUTAP" trace -o "$WORK/ex" -- $T/t_threads >/dev/null 2>&1 || return 1
    "$CUTAP" trace -o "$WORK/ex2" -- $T/t_record kernels >/dev/null 2>&1 || return 1
    cp "$WORK"/ex2/*.cutap "$WORK/ex/k.cutap"
    for f in perfetto sqlite jsonl; do
        "$CUTAP" export --format $f -o "$WORK/ex.$f" "$WORK/ex" || return 1
    done
    "$CUTAP" export --format jsonl -o "$WORK/ex.jsonl" "$WORK/ex" 2>"$WORK/ex.err"; [ $? = 1 ] || return 1   # never overwrites
    "$CUTAP" report --format csv "$WORK/ex" >"$WORK/ex.csv" || return 1
    python3 - "$WORK" <<'EOF'
import csv, json, sqlite3, sys
w = sys.argv[1]
calls = sum(int(r["calls"]) for r in csv.DictReader(open(w + "/ex.csv")))
assert calls == 24007, calls
ev = json.load(open(w + "/ex.perfetto"))["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
assert len(x) == calls, (len(x), calls)
assert len({(e["pid"], e["tid"]) for e in x}) == 17, "a track per thread"
names = [e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"]
assert len(names) == 2, names
assert any(e["name"] == "cuLaunchKernel" and e["args"].get("kernel") == "_Z6vecaddPfS_i" for e in x)
db = sqlite3.connect(w + "/ex.sqlite")
assert db.execute("select count(*) from calls").fetchone()[0] == calls
assert db.execute("select count(*) from processes").fetchone()[0] == 2
assert db.execute("select count(*) from threads").fetchone()[0] == 17
n = db.execute("select count(*) from calls_named where name = 'cuLaunchKernel' and kernel = 'plain_kernel'").fetchone()[0]
assert n == 1, n
lines = [json.loads(l) for l in open(w + "/ex.jsonl")]
assert sum(1 for l in lines if l["type"] == "call") == calls
EOF
}

case_export_sqlite_without_library() {
    # The command links no SQLite: --format sqlite loads libsqlite3.so.0 (or
    # $CUTAP_SQLITE_LIB) when asked for. Without it: status 1, a message
    # naming the library, no output and no temporary left; the other
    # formats never touch it.
    "$CUTAP" trace -o "$WORK/nl" -- $T/t_record kernels >/dev/null 2>&1 || return 1
    mkdir -p "$WORK/nlout"
    local st lib want
    for lib in /nonexistent/libsqlite3.so:'cannot be loaded: /nonexistent/libsqlite3.so' libc.so.6:'has no sqlite3_'; do
        want=${lib#*:}; lib=${lib%%:*}
        CUTAP_SQLITE_LIB=$lib "$CUTAP" export --format sqlite -o "$WORK/nlout/x.sqlite" "$WORK/nl" 2>"$WORK/nl.err"
        st=$?
        [ $st = 1 ] || { say "  CUTAP_SQLITE_LIB=$lib: exit $st, want 1"; cat "$WORK/nl.err" >&2; return 1; }
        grep -q "^cutap export: --format sqlite needs libsqlite3.so.0.*$want" "$WORK/nl.err" \
            || { say "  CUTAP_SQLITE_LIB=$lib: no message with '$want':"; cat "$WORK/nl.err" >&2; return 1; }
        [ -z "$(ls -A "$WORK/nlout")" ] || { say "  left behind: $(ls -A "$WORK/nlout")"; return 1; }
    done
    for f in perfetto jsonl; do
        CUTAP_SQLITE_LIB=/nonexistent/libsqlite3.so "$CUTAP" export --format $f -o "$WORK/nlout/x.$f" "$WORK/nl" \
            && [ -s "$WORK/nlout/x.$f" ] || { say "  --format $f failed without libsqlite3"; return 1; }
    done
    CUTAP_SQLITE_LIB=/nonexistent/libsqlite3.so "$CUTAP" report "$WORK/nl" >/dev/null || return 1
    # the real library, named by the variable
    local real; real=$(/sbin/ldconfig -p 2>/dev/null | awk '$1 == "libsqlite3.so.0" { print $NF; exit }')
    [ -n "$real" ] || return 0
    CUTAP_SQLITE_LIB=$real "$CUTAP" export --format sqlite -o "$WORK/nlout/x.sqlite" "$WORK/nl" \
        && [ -s "$WORK/nlout/x.sqlite" ]
}

case_trace_python_multiprocessing() {
    # Python children by fork and by spawn (a fresh interpreter): each
    # process that calls the driver has its file, with its calls.
    command -v python3 >/dev/null || return 77
    cat >"$WORK/mp.py" <<'EOF'
import ctypes, multiprocessing as mp
def work(n):
    cuda = ctypes.CDLL("libcuda.so.1")
    v = ctypes.c_int()
    for _ in range(n):
        assert cuda.cuDriverGetVersion(ctypes.byref(v)) == 0
if __name__ == "__main__":
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(2) as p:
            p.map(work, [3, 4])
    work(5)
EOF
    "$CUTAP" trace -o "$WORK/mp" -- python3 "$WORK/mp.py" 2>"$WORK/mp.err" || { cat "$WORK/mp.err" >&2; return 1; }
    # 3+4 calls per method in the pool workers, 5 in the parent
    "$CUTAP" report --format csv "$WORK/mp" | grep -q '^driver,cuDriverGetVersion,19,0,' \
        || { "$CUTAP" report "$WORK/mp" >&2; return 1; }
    [ "$(ls "$WORK/mp" | wc -l)" -ge 3 ]
}

# --- the reader and the command under AddressSanitizer + UBSan -------------
# Builds: tests/tests.mk ($(T)/fuzz_reader, $(BUILD)/asan/cutap). Any
# sanitizer report aborts the program; leaks are reported at exit.
sanitized() {
    ASAN_OPTIONS=detect_leaks=${SAN_LEAKS:-1}:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$@"
}
# LeakSanitizer needs ptrace; where it cannot run (some containers), run
# without leak checks rather than fail.
san_leaks() {
    local e; e=$(sanitized "$1" --help 2>&1 >/dev/null)
    case $e in *"LeakSanitizer has encountered a fatal error"*) say "  (LeakSanitizer unusable here: leaks not checked)"; echo 0 ;; *) echo 1 ;; esac
}
FUZZ_SEED=1
FUZZ_ITERATIONS=500

case_reader_fuzz_asan() {
    [ -x $T/fuzz_reader ] || return 77
    local d=$WORK/fz i=0 m f
    rm -rf "$d"; mkdir -p "$d/seeds"
    # seeds: calls with kernels, failing calls and strings, many chunks,
    # export-table slots, 16 threads, and a counting-mode file
    for m in "t_record kernels" "t_record errors" "t_record many 5000" "t_paths_pie hidden" "t_threads"; do
        i=$((i + 1))
        "$CUTAP" trace -o "$d/t$i" -- $T/$m >/dev/null 2>&1 || { say "  cutap trace $m failed"; return 1; }
        for f in "$d/t$i"/*.cutap; do cp "$f" "$d/seeds/$i-${f##*/}"; done
    done
    CUTAP_COUNT=$d/count LD_PRELOAD=$LIB $T/t_threads >/dev/null 2>&1 || return 1
    for f in "$d/count"/*.cutap; do cp "$f" "$d/seeds/count-${f##*/}"; done
    # and files of format version 1 (40-byte counters)
    gzip -dc tests/fixtures/v1-count.cutap.gz >"$d/seeds/v1-count.cutap" || return 1
    gzip -dc tests/fixtures/v1-trace.cutap.gz >"$d/seeds/v1-trace.cutap" || return 1
    [ "$(ls "$d/seeds" | wc -l)" -ge 8 ] || { ls "$d/seeds" >&2; return 1; }
    local SAN_LEAKS; SAN_LEAKS=$(san_leaks $T/fuzz_reader)
    sanitized timeout 300 $T/fuzz_reader -d "$d/run" $FUZZ_SEED $FUZZ_ITERATIONS "$d/seeds"/*.cutap 2>"$d/fuzz.err"
    local rc=$?
    if [ $rc != 0 ] || ! grep -q "^fuzz: $FUZZ_ITERATIONS iterations, " "$d/fuzz.err"; then
        say "  fuzz_reader exit $rc"; head -60 "$d/fuzz.err" >&2
        [ $rc = 124 ] && say "  (killed by timeout 300)"
        if [ -f "$d/run/last.cutap" ]; then
            cp "$d/run/last.cutap" "$B/fuzz_reader-failure.cutap" && say "  the input is kept in $B/fuzz_reader-failure.cutap"
        fi
        return 1
    fi
    grep '^fuzz: ' "$d/fuzz.err" >&2
}

case_cli_under_asan() {
    local A=$B/asan/cutap d=$WORK/as
    [ -x "$A" ] || return 77
    rm -rf "$d"; mkdir -p "$d"
    local SAN_LEAKS; SAN_LEAKS=$(san_leaks "$A")
    # acli STATUS ARGS...: the ASan cutap must exit with STATUS and report nothing
    acli() {
        local want=$1; shift
        CUTAP_LIBRARY=$LIB sanitized timeout 120 "$A" "$@" >"$d/out" 2>"$d/err"
        local rc=$?
        if [ $rc != "$want" ] || grep -q -e 'Sanitizer' -e 'runtime error' "$d/err"; then
            say "  cutap $*: exit $rc, want $want"; head -40 "$d/err" >&2; return 1
        fi
    }
    # good inputs: a trace (one process), two processes, counting mode
    acli 0 trace -o "$d/k" -- $T/t_record kernels || return 1
    grep -q '^CALL cuLaunchKernel' "$d/out" || return 1
    acli 0 trace -o "$d/fork" -- $T/t_fork || return 1
    acli 0 stat -o "$d/stat.txt" -- $T/t_threads || return 1
    grep -q 'cuCtxGetCurrent' "$d/stat.txt" || return 1
    CUTAP_COUNT=$d/count LD_PRELOAD=$LIB $T/t_threads >/dev/null 2>&1 || return 1
    local t fmt by
    for t in k fork count; do
        for fmt in text csv json; do
            acli 0 report --format $fmt "$d/$t" || return 1
            for by in process thread rank; do acli 0 report --format $fmt --by $by "$d/$t" || return 1; done
        done
        for fmt in jsonl perfetto sqlite; do
            acli 0 export --format $fmt -o "$d/$t.$fmt" "$d/$t" || return 1
            [ -s "$d/$t.$fmt" ] || { say "  export $fmt of $t: empty"; return 1; }
        done
    done
    for t in k fork; do acli 0 dump "$d/$t" || return 1; done
    acli 0 dump "$d/k" && grep -q ' cuLaunchKernel(f=0x[0-9a-f]*<vecadd(float\*, float\*, int)>' "$d/out" \
        || { say "  dump of the kernels trace:"; head -20 "$d/out" >&2; return 1; }
    acli 0 dump --no-demangle "$d/k" || return 1
    local pid
    acli 0 report --by process --format csv "$d/fork" || return 1
    pid=$(awk -F, 'NR > 1 && $2 == "cuMemAlloc_v2" { print $NF; exit }' "$d/out")
    [ -n "$pid" ] || { say "  no child pid in the report"; return 1; }
    acli 0 dump --pid "$pid" "$d/fork" && [ "$(grep -c ' cuMemAlloc_v2(' "$d/out")" = 3 ] || return 1
    acli 1 dump --pid 1 "$d/fork" || return 1
    # bad inputs (as in reader_rejects_bad_files): status 1 and a message
    acli 0 trace -o "$d/m" -- $T/t_record many 100 || return 1
    local f; f=$(ls "$d/m"/*.cutap)
    mkdir -p "$d/bad" "$d/empty"
    cp "$f" "$d/bad/v.cutap"; printf '\x09\x00\x00\x00' | dd of="$d/bad/v.cutap" bs=1 seek=8 conv=notrunc 2>/dev/null
    head -c 5000 /dev/urandom >"$d/bad/r.cutap"
    head -c 100 "$f" >"$d/bad/s.cutap"
    cp "$f" "$d/bad/d.cutap"; printf '\x07' | dd of="$d/bad/d.cutap" bs=1 seek=$((4096 + 64 * 50)) conv=notrunc 2>/dev/null
    local b want
    for b in v:'version 9 is not supported' r:'bad magic' s:'shorter than the header' d:'unknown record kind'; do
        want=${b#*:}; b=${b%%:*}
        acli 1 report "$d/bad/$b.cutap" && grep -q "$want" "$d/err" || { say "  report $b.cutap: no '$want'"; return 1; }
        acli 1 dump "$d/bad/$b.cutap" || return 1
        for fmt in jsonl perfetto sqlite; do acli 1 export --format $fmt -o "$d/bad.$b.$fmt" "$d/bad/$b.cutap" || return 1; done
    done
    acli 1 report "$d/bad" || return 1   # all four at once: the damaged one is read
    # a FIFO named *.cutap beside a good file: refused, not waited on
    mkdir -p "$d/ff"; cp "$f" "$d/ff/"
    if mkfifo "$d/ff/z.cutap" 2>/dev/null; then
        acli 1 report "$d/ff" && grep -q 'z.cutap: not a regular file' "$d/err" || { say "  FIFO: no message"; return 1; }
        acli 1 dump "$d/ff/z.cutap" || return 1
    fi
    acli 1 report "$d/empty" && grep -q 'no trace files' "$d/err" || return 1
    # no libsqlite3: a message, no file
    CUTAP_SQLITE_LIB=$d/none.so acli 1 export --format sqlite -o "$d/none.sqlite" "$d/k" || return 1
    grep -q 'needs libsqlite3.so.0' "$d/err" && [ ! -e "$d/none.sqlite" ]
}

case_trace_signals_and_fds() {
    # After the command exited, SIGTERM ends cutap's wait for orphans.
    "$CUTAP" trace -o "$WORK/sg" -- sh -c 'sleep 30 >/dev/null 2>&1 & exit 4' 2>/dev/null &
    local cp=$!
    sleep 0.5; kill -TERM $cp
    local i=0; while kill -0 $cp 2>/dev/null && [ $i -lt 40 ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 $cp 2>/dev/null && { say "  cutap still waiting after SIGTERM"; kill -9 $cp; return 1; }
    wait $cp; local st=$?; [ $st = 4 ] || { say "  status $st, want 4"; return 1; }
    pkill -f 'sleep 30' 2>/dev/null
    # `cutap stat -o FILE`: the command does not inherit the report file.
    "$CUTAP" stat -o "$WORK/sg.txt" -- sh -c 'for f in /proc/$$/fd/*; do readlink $f; done; true' >"$WORK/sg.fds" 2>/dev/null || return 1
    grep -q 'sg.txt' "$WORK/sg.fds" && { say "  report file leaked into the command"; return 1; }
    # A LD_PRELOAD entry that merely contains cutap's path is not cutap.
    LD_PRELOAD="$LIB.old" "$CUTAP" trace -o "$WORK/sg2" -- $T/t_record many 2 >/dev/null 2>&1 || return 1
    [ "$(ls "$WORK/sg2" | wc -l)" = 1 ]
}

case_trace_relative_dir_and_chdir() {
    # CUTAP_TRACE=relative: resolved where the process started, even if it
    # changes directory before its first call.
    mkdir -p "$WORK/rel/elsewhere"
    (cd "$WORK/rel" && CUTAP_TRACE=run1 LD_PRELOAD=$LIB sh -c "cd elsewhere && $T/t_record many 2" >/dev/null) || return 1
    [ "$(ls "$WORK/rel/run1" 2>/dev/null | wc -l)" = 1 ] && [ ! -e "$WORK/rel/elsewhere/run1" ]
}

case_trace_skipped_call_outputs() {
    # A plugin skips cuDeviceGetCount (writing the count itself): the record
    # says skipped and holds no output read from the caller's memory.
    CUTAP_PLUGINS=$T/apitest.so CUTAP_TRACE=$WORK/sk LD_PRELOAD=$LIB $T/t_api >/dev/null 2>&1 || return 1
    "$CUTAP" dump "$WORK/sk" >"$WORK/sk.txt" || return 1
    grep -qE ' cuDeviceGetCount\(count=0x[0-9a-f]+\) = CUDA_SUCCESS <[^>]*> \(skipped\)$' "$WORK/sk.txt" \
        || { grep cuDeviceGetCount "$WORK/sk.txt" >&2; return 1; }
}

case_trace_clock_choice() {
    # CUTAP_CLOCK=ns / =tsc pick the record clock (header field at offset
    # 24: 0 ns, 1 TSC); both give sane times.
    local c v
    for c in ns:0 tsc:1; do
        v=${c#*:}; c=${c%:*}
        CUTAP_CLOCK=$c "$CUTAP" trace -o "$WORK/ck$c" -- $T/t_record many 50 >/dev/null 2>&1 || return 1
        [ "$(od -An -tu4 -j24 -N4 "$WORK/ck$c"/*.cutap | tr -d ' ')" = "$v" ] || { say "  clock $c: header"; return 1; }
        # 50 calls of a few hundred ns each: total well under 10 ms
        "$CUTAP" report --format csv "$WORK/ck$c" | awk -F, '$2 == "cuCtxGetCurrent" && $3 == 50 && $5 > 0 && $5 < 10000000 {ok=1} END {exit !ok}' \
            || { "$CUTAP" report "$WORK/ck$c" >&2; return 1; }
    done
}

case_trace_library_choice() {
    CUTAP_LIBRARY=$WORK/none.so "$CUTAP" trace -o "$WORK/lc1" -- true 2>"$WORK/lc1.err"; [ $? = 1 ] || return 1
    grep -q 'CUTAP_LIBRARY=.*none.so' "$WORK/lc1.err" || return 1
    CUTAP_LIBRARY=$LIB "$CUTAP" trace -o "$WORK/lc2" -- $T/t_record many 1 >/dev/null 2>&1 && [ "$(ls "$WORK/lc2" | wc -l)" = 1 ]
}

case_report_by_thread_and_export_force() {
    "$CUTAP" trace -o "$WORK/bt" -- $T/t_threads >/dev/null 2>&1 || return 1
    "$CUTAP" report --by thread --format csv "$WORK/bt" >"$WORK/bt.csv" || return 1
    # 16 threads x (cuCtxGetCurrent, cuDriverGetVersion, cuMemAlloc_v2), 500 each
    [ "$(grep -c '^driver,cu[A-Za-z_0-9]*,500,0,' "$WORK/bt.csv")" = 48 ] || { head "$WORK/bt.csv" >&2; return 1; }
    # columns: ...,unfinished,timed,host,pid,tid
    [ "$(cut -d, -f15 "$WORK/bt.csv" | sed 1d | sort -u | wc -l)" = 16 ] || return 1
    echo old >"$WORK/bt.json"
    "$CUTAP" export --format perfetto -o "$WORK/bt.json" "$WORK/bt" 2>/dev/null; [ $? = 1 ] || return 1
    grep -qx old "$WORK/bt.json" || return 1
    "$CUTAP" export --format perfetto --force -o "$WORK/bt.json" "$WORK/bt" && grep -q traceEvents "$WORK/bt.json"
}

case_reader_skips_empty_files() {
    # A process killed between making its file and writing the header
    # leaves an empty file: skipped with a note, not an error.
    "$CUTAP" trace -o "$WORK/em" -- $T/t_record many 3 >/dev/null 2>&1 || return 1
    : >"$WORK/em/host.1.cutap"; head -c 8192 /dev/zero >"$WORK/em/host.2.cutap"
    "$CUTAP" report --format csv "$WORK/em" >"$WORK/em.csv" 2>"$WORK/em.err" || { cat "$WORK/em.err" >&2; return 1; }
    [ "$(grep -c 'empty trace file' "$WORK/em.err")" = 2 ] && grep -q '^driver,cuCtxGetCurrent,3,0,' "$WORK/em.csv"
}

# --- --runtime=cupti: a static cudart's calls through CUPTI (issue #5) --
# t_static_rt has its own mini runtime that reports every call to the fake
# libcupti.so.13 ($B/fake, on LD_LIBRARY_PATH) and prints, on stdout, CALL
# for each driver call and the results; on stderr, RTCALL for each runtime
# call a CUPTI subscriber got that cutap must record (src/resolve/cupti_rt.c).
srt_run() {   # srt_run NAME [cutap trace options]: trace t_static_rt into $WORK/NAME
    local name=$1; shift
    rm -rf "$WORK/$name"
    "$CUTAP" trace "$@" -o "$WORK/$name" -- $T/t_static_rt >"$WORK/$name.out" 2>"$WORK/$name.err" \
        || { say "  cutap trace $* failed:"; tail -5 "$WORK/$name.err" >&2; return 1; }
}
# The recorded calls are exactly the CALL lines, plus the RTCALL lines when with_rt is 1.
srt_recorded() {   # srt_recorded NAME with_rt
    { called "$WORK/$1.out"; [ "$2" = 1 ] && sed -n 's/^RTCALL //p' "$WORK/$1.err"; } >"$WORK/$1.called"
    report_names "$WORK/$1" >"$WORK/$1.seen" || return 1
    same_counts "$WORK/$1.called" "$WORK/$1.seen"
}
srt_bare() { [ -s "$WORK/srt_bare.out" ] || $T/t_static_rt >"$WORK/srt_bare.out" 2>/dev/null; }
# The program's output is what it is without cutap.
srt_same_output() { srt_bare && cmp -s "$WORK/srt_bare.out" "$WORK/$1.out" || { say "  output changed:"; diff "$WORK/srt_bare.out" "$WORK/$1.out" | head >&2; return 1; }; }

case_cupti_runtime_calls_recorded() {
    srt_run cr --runtime=cupti || return 1
    srt_same_output cr || return 1
    # the fake delivered: 3 + 200 cudaMalloc entries, 64 of the 70 nested calls
    [ "$(grep -c '^RTCALL cudaMalloc$' "$WORK/cr.err")" = 203 ] && [ "$(grep -c '^RTCALL cudaDeviceSynchronize$' "$WORK/cr.err")" = 64 ] \
        || { say "  t_static_rt: unexpected RTCALL lines"; sort "$WORK/cr.err" | uniq -c >&2; return 1; }
    # every runtime call CUPTI reported is recorded once, in layer runtime; the
    # first one (entry before cuInit), the unknown name and the calls deeper than 64 are not
    srt_recorded cr 1 || return 1
    "$CUTAP" report --format csv "$WORK/cr" >"$WORK/cr.csv" || return 1
    grep -q '^runtime,cudaMalloc,203,' "$WORK/cr.csv" && grep -q '^runtime,cudaFree,1,' "$WORK/cr.csv" \
        && ! grep -q -e cudaGetDeviceCount -e cudaNotARuntimeFunction -e _v3020 "$WORK/cr.csv" \
        || { cat "$WORK/cr.csv" >&2; return 1; }
    # arguments from CUPTI's params structs, results from its return value
    # (the argument words are the last list of the line); a callback id of
    # another signature than the pinned headers' (an older runtime's
    # cudaStreamGetCaptureInfo) is recorded without reading its params
    "$CUTAP" export --format jsonl -o "$WORK/cr.jsonl" "$WORK/cr" || return 1
    local pat n
    while IFS=' ' read -r n pat; do
        [ "$(grep -cE -- "$pat" "$WORK/cr.jsonl")" = "$n" ] || { say "  not $n lines match: $pat"; grep '"runtime"' "$WORK/cr.jsonl" | head -12 >&2; return 1; }
    done <<'PAT'
1 "layer":"runtime","name":"cudaMalloc","depth":0,"result":0,.*\["0x[0-9a-f]+","0x1000"\]
1 "layer":"runtime","name":"cudaMalloc","depth":0,"result":1,.*\["0x[0-9a-f]+","0x0"\]
1 "layer":"runtime","name":"cudaMalloc","depth":0,"result":0,.*\["0x[0-9a-f]+","0x64"\]
200 "layer":"runtime","name":"cudaMalloc","depth":0,"result":0,.*\["0x[0-9a-f]+","0x40"\]
1 "layer":"runtime","name":"cudaMemset","depth":0,"result":0,.*\["0x[0-9a-f]+","0xffffffffffffffff","0x1000"\]
1 "layer":"runtime","name":"cudaGetDevice","depth":0,"result":0,.*\["0x0"\]
1 "layer":"runtime","name":"cudaFree","depth":0,"result":0,.*\["0x[0-9a-f]+"\]
1 "layer":"runtime","name":"cudaStreamGetCaptureInfo","depth":0,"result":0,.*\[\]
PAT
    # structs passed by value: their address inside CUPTI's params struct
    local g b l
    read -r g b < <(sed -n 's/^ADDR cudaLaunchKernel //p' "$WORK/cr.err"); l=$(sed -n 's/^ADDR cudaMemAdvise //p' "$WORK/cr.err")
    for pat in '"name":"cudaLaunchKernel","depth":0,"result":0,.*\["0xf0000100","'$g'","'$b'","0x0","0x40","0x0"\]' \
               '"name":"cudaMemAdvise","depth":0,"result":0,.*\["0x[0-9a-f]+","0x1000","0x1","'$l'"\]'; do
        [ "$(grep -cE -- "$pat" "$WORK/cr.jsonl")" = 1 ] || { say "  no line matches: $pat"; grep -e cudaLaunchKernel -e cudaMemAdvise "$WORK/cr.jsonl" >&2; return 1; }
    done
    # Reports without correlationData: the same calls.
    FAKE_CUPTI_NO_CORR=1 srt_run cr2 --runtime=cupti && srt_recorded cr2 1
}

case_cupti_runtime_nesting() {
    # Driver calls made inside a runtime call have it as parent; calls
    # nested deeper than cutap follows (64) leave it balanced.
    local corr
    for corr in 0 1; do
        FAKE_CUPTI_NO_CORR=$corr srt_run cn$corr --runtime=cupti || return 1
        "$CUTAP" report --tree --format csv "$WORK/cn$corr" >"$WORK/cn.csv" || return 1
        awk -F, '
            $1 == "cudaMalloc" && $2 == "runtime" && $5 == 203 {ok["m"]=1}
            $1 == "cudaMalloc > cuMemAlloc_v2" && $2 == "driver" && $4 == 1 && $5 == 203 {ok["a"]=1}
            $1 == "cudaMemset > cuMemsetD8_v2" && $5 == 1 {ok["s"]=1}
            $1 == "cudaLaunchKernel > cuLaunchKernel" && $5 == 1 {ok["l"]=1}
            $1 == "cudaGetDevice > cuCtxGetDevice" && $5 == 1 {ok["g"]=1}
            $1 == "cudaFree > cuMemFree_v2" && $5 == 1 {ok["f"]=1}
            $1 == "cuCtxGetCurrent" || $1 == "cuDeviceGetCount" || $1 == "cuInit" {top++}
            $1 == "cuMemAlloc_v2" {bad = "cuMemAlloc_v2 at the top"}
            $3 == "cudaDeviceSynchronize" {ds++; if ($4 > dmax) dmax = $4}
            $3 == "cuCtxSynchronize" && $4 == 64 {ok["c"]=1}
            $1 == "cudaMemAdvise > cuMemAdvise_v2" && $5 == 1 {ok["v"]=1}
            # made by each level after the one inside returned: under that
            # level, the 64th for the 6 levels cutap does not follow
            $3 == "cuDriverGetVersion" {dv++; if ($5 != ($4 == 64 ? 6 : 1)) bad = "cuDriverGetVersion at depth " $4 ": " $5}
            END { n = 0; for (k in ok) n++
                  if (n != 8 || top != 3 || ds != 64 || dmax != 63 || dv != 64 || bad != "") {
                      print "  corr '"$corr"': " n " of 8 checks, " top " top-level calls, " ds " cudaDeviceSynchronize, depth " dmax ", " dv " cuDriverGetVersion paths " bad > "/dev/stderr"; exit 1 } }' \
            "$WORK/cn.csv" || { head -20 "$WORK/cn.csv" >&2; return 1; }
    done
    # the parent ids of the export name the runtime call
    "$CUTAP" export --format jsonl -o "$WORK/cn.jsonl" "$WORK/cn0" || return 1
    awk '{ match($0, /"id":[0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5)
           match($0, /"name":"[A-Za-z_0-9]+"/); nm[id] = substr($0, RSTART + 8, RLENGTH - 9)
           if ($0 ~ /"name":"cuMemAlloc_v2"/) { match($0, /"parent":[0-9]+/); p[id] = substr($0, RSTART + 9, RLENGTH - 9) } }
         END { for (i in p) { n++; if (nm[p[i]] == "cudaMalloc") ok++ } exit !(n == 203 && ok == 203) }' "$WORK/cn.jsonl" \
        || { say "  cuMemAlloc_v2 parents are not all cudaMalloc"; return 1; }
}

case_cupti_runtime_off_by_default() {
    # Without --runtime=cupti (or with =symbols) nothing subscribes: only
    # the driver calls; CUTAP_RUNTIME from the caller's environment does not
    # override the option's default. A bad value is refused.
    srt_run co1 && srt_recorded co1 0 && srt_same_output co1 || return 1
    CUTAP_RUNTIME=cupti srt_run co2 --runtime=symbols && srt_recorded co2 0 || return 1
    CUTAP_RUNTIME=cupti srt_run co3 && srt_recorded co3 0 || return 1
    ! grep -q 'runtime=cupti' "$WORK/co1.err" "$WORK/co2.err" "$WORK/co3.err" || return 1
    "$CUTAP" trace --runtime=bogus -o "$WORK/co4" -- true 2>"$WORK/co4.err"; [ $? = 2 ] || return 1
    grep -q -- '--runtime=bogus: takes symbols or cupti' "$WORK/co4.err" || return 1
    "$CUTAP" trace --help | grep -q -- '--runtime=symbols|cupti' || return 1
    # the library warns about a bad CUTAP_RUNTIME (into the directory's
    # registry, not on the program's stderr) and goes on
    CUTAP_RUNTIME=bogus CUTAP_TRACE=$WORK/co5 LD_PRELOAD=$LIB $T/t_static_rt >"$WORK/co5.out" 2>"$WORK/co5.err" || return 1
    reg_says "$WORK/co5" 'CUTAP_RUNTIME=bogus: takes symbols or cupti' && ! grep -q cutap "$WORK/co5.err" && srt_same_output co5
}

case_cupti_runtime_busy() {
    # Another tool holds CUPTI: a clear message, the program's output and
    # every driver call as without the option, no runtime call.
    FAKE_CUPTI_BUSY=1 srt_run cb --runtime=cupti || return 1
    grep -q -- '--runtime=cupti: CUPTI is already in use by another tool (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED); runtime calls are not recorded' \
        "$WORK/cb.err" || { cat "$WORK/cb.err" >&2; return 1; }
    [ "$(grep -c 'CUPTI is already in use' "$WORK/cb.err")" = 1 ] || return 1
    srt_same_output cb && srt_recorded cb 0
}

case_cupti_runtime_no_library() {
    # No libcupti: a clear message, and the run as without the option. A
    # library without CUPTI's functions likewise. CUTAP_CUPTI_LIB names the
    # one library tried; by absolute path it works without LD_LIBRARY_PATH.
    mkdir -p "$WORK/nocupti" && ln -sf "$B/fake/libcuda.so.1" "$WORK/nocupti/libcuda.so.1"
    CUTAP_CUPTI_LIB=/nonexistent/libcupti.so.13 LD_LIBRARY_PATH=$WORK/nocupti srt_run cm --runtime=cupti || return 1
    grep -q -- '--runtime=cupti: libcupti not found (CUTAP_CUPTI_LIB=/nonexistent/libcupti.so.13: .*); runtime calls are not recorded' \
        "$WORK/cm.err" || { cat "$WORK/cm.err" >&2; return 1; }
    srt_same_output cm && srt_recorded cm 0 || return 1
    CUTAP_CUPTI_LIB=$B/fake/libcuda.so.1 srt_run cm2 --runtime=cupti || return 1
    grep -q -- '--runtime=cupti: .*libcuda.so.1 lacks cuptiSubscribe' "$WORK/cm2.err" || { cat "$WORK/cm2.err" >&2; return 1; }
    srt_same_output cm2 && srt_recorded cm2 0 || return 1
    CUTAP_CUPTI_LIB=$B/fake/libcupti.so.13 LD_LIBRARY_PATH=$WORK/nocupti srt_run cm3 --runtime=cupti || return 1
    srt_recorded cm3 1 && grep -q '^RTCALL cudaMalloc' "$WORK/cm3.err"
}

case_cupti_runtime_stat() {
    # cutap stat --runtime=cupti counts the runtime calls too.
    "$CUTAP" stat --runtime=cupti -o "$WORK/cs.txt" -- $T/t_static_rt >/dev/null 2>"$WORK/cs.err" || return 1
    grep -qE '^ .* 203 .* runtime +cudaMalloc$' "$WORK/cs.txt" && grep -qE ' 203 .* driver +cuMemAlloc_v2$' "$WORK/cs.txt" \
        || { cat "$WORK/cs.txt" >&2; return 1; }
    "$CUTAP" stat -o "$WORK/cs2.txt" -- $T/t_static_rt >/dev/null 2>&1 || return 1
    ! grep -q runtime "$WORK/cs2.txt" || { cat "$WORK/cs2.txt" >&2; return 1; }
}

case_cupti_runtime_shared_cudart_once() {
    # A shared libcudart whose functions also report to CUPTI, called from a
    # static runtime function: each shared call reaches cutap through our
    # wrapper and through CUPTI and is recorded once; the static one once;
    # nesting as made (t_shared_rt.c). With and without correlationData.
    local corr
    for corr in 0 1; do
        FAKE_CUPTI_NO_CORR=$corr "$CUTAP" trace --runtime=cupti -o "$WORK/cd$corr" -- $T/t_shared_rt 10 \
            >"$WORK/cd.out" 2>"$WORK/cd.err" || { cat "$WORK/cd.err" >&2; return 1; }
        grep -q '^delivered 10$' "$WORK/cd.err" || { say "  CUPTI did not get the calls:"; cat "$WORK/cd.err" >&2; return 1; }
        called "$WORK/cd.out" >"$WORK/cd.called"
        report_names "$WORK/cd$corr" >"$WORK/cd.seen" && same_counts "$WORK/cd.called" "$WORK/cd.seen" || return 1
        "$CUTAP" report --tree --format csv "$WORK/cd$corr" >"$WORK/cd.csv" || return 1
        grep -q '^cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,1,9,' "$WORK/cd.csv" \
            && grep -q '^cudaMemset > cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,2,1,' "$WORK/cd.csv" \
            && grep -q '^cudaMemset > cuMemsetD8_v2,driver,cuMemsetD8_v2,1,1,' "$WORK/cd.csv" \
            || { say "  corr $corr:"; cat "$WORK/cd.csv" >&2; return 1; }
    done
}

# --- the fake runtime and libraries (issue #5): exactness and nesting -------
# $(BUILD)/fakelibs holds one fake per layer with a library
# (gen/lib_fake_generator.py, tests/fakelibs.mk). The programs find them
# through their RUNPATH; the cases also put them on LD_LIBRARY_PATH, as a
# CUDA installation is, so that cutap could load one the program never
# loads (it must not).
FL=$B/fakelibs
# (A program that hangs, as one calling itself through a misresolved
# wrapper would, fails after 60 s.)
libs_env() { LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH timeout 60 "$@"; }
# Functions of the fakes (every export of the real libraries with a
# layer's prefix), from their version scripts.
libs_nfuncs() { grep -h '^    [A-Za-z_0-9]*;$' tests/fake/generated/fake_*.map | grep -vc '^    fake_lib_api;$'; }
exact_lib_ok() {   # OUT: the program's summary says every function passed
    local n; n=$(libs_nfuncs)
    grep -qx "exact-lib: $n checked, 0 failed" "$1" || { say "  want 'exact-lib: $n checked, 0 failed':"; tail -3 "$1" >&2; return 1; }
}

case_exact_lib_without_cutap() {
    # Bare: dlsym gives each fake's own function; the fakes see the words.
    libs_env $T/exact_lib >"$WORK/el0.out" || { tail -3 "$WORK/el0.out" >&2; return 1; }
    exact_lib_ok "$WORK/el0.out"
}
case_exact_lib_fast_path() {
    # cutap with no client: wrappers straight to the real function.
    EXPECT_CUTAP=1 LD_PRELOAD=$LIB libs_env $T/exact_lib >"$WORK/el1.out" || { tail -3 "$WORK/el1.out" >&2; return 1; }
    exact_lib_ok "$WORK/el1.out"
}
case_exact_lib_log() {
    # CUTAP_LOG (the callback path): each call logged once, at depth 0.
    rm -f "$WORK/el2.log"
    EXPECT_CUTAP=1 CUTAP_LOG=$WORK/el2.log LD_PRELOAD=$LIB libs_env $T/exact_lib >"$WORK/el2.out" \
        || { tail -3 "$WORK/el2.out" >&2; return 1; }
    exact_lib_ok "$WORK/el2.out" || return 1
    called "$WORK/el2.out" >"$WORK/el2.called"; top_names "$WORK/el2.log" >"$WORK/el2.seen"
    same_counts "$WORK/el2.called" "$WORK/el2.seen"
}
case_exact_lib_traced() {
    # cutap trace (the fused recorder, arguments and outputs read): every
    # function recorded once, in its layer.
    rm -rf "$WORK/el3"
    EXPECT_CUTAP=1 libs_env "$CUTAP" trace -o "$WORK/el3" -- $T/exact_lib >"$WORK/el3.out" 2>"$WORK/el3.err" \
        || { tail -3 "$WORK/el3.out" "$WORK/el3.err" >&2; return 1; }
    exact_lib_ok "$WORK/el3.out" || return 1
    sed -n 's/^LAYER //p' "$WORK/el3.out" >"$WORK/el3.called"
    "$CUTAP" report --format csv "$WORK/el3" | awk -F, 'NR > 1 { for (i = 0; i < $3; i++) print $1, $2 }' >"$WORK/el3.seen" \
        || return 1
    same_counts "$WORK/el3.called" "$WORK/el3.seen"
}

# The call tree of t_libs with cuBLAS (path,layer,depth,calls): cudaMalloc
# finds the driver (cuGetProcAddress_v2, cuInit) and calls cuMemAlloc_v2;
# each GEMM calls cublasLtMatmul, which launches a kernel.
LIBS_RT_TREE='cudaMalloc,runtime,0,2
cudaMalloc > cuGetProcAddress_v2,driver,1,5
cudaMalloc > cuInit,driver,1,1
cudaMalloc > cuMemAlloc_v2,driver,1,1
cudaMemcpy,runtime,0,2
cudaMemcpy > cuMemcpyHtoD_v2,driver,1,1
cudaMemcpy > cuMemcpyDtoH_v2,driver,1,1
cudaGetErrorString,runtime,0,2
cudaFree,runtime,0,1
cudaFree > cuMemFree_v2,driver,1,1'
LIBS_TREE="$LIBS_RT_TREE
cublasCreate_v2,cublas,0,1
cublasCreate_v2 > cuCtxGetCurrent,driver,1,1
cublasSgemm_v2,cublas,0,1
cublasSgemm_v2 > cublasLtMatmul,cublasLt,1,1
cublasSgemm_v2 > cublasLtMatmul > cuLaunchKernel,driver,2,1
cublasGemmEx,cublas,0,1
cublasGemmEx > cublasLtMatmul,cublasLt,1,1
cublasGemmEx > cublasLtMatmul > cuLaunchKernel,driver,2,1
cublasDestroy_v2,cublas,0,1"

# libs_traced NAME TREE PROGRAM ARGS...: a bare run, then one under cutap
# trace: same output and status, the call tree TREE exactly (each call
# once, in its layer, under its caller), the parents in the JSON lines
# export, the nesting in the dump.
libs_traced() {
    local name=$1 want=$2; shift 2
    local d=$WORK/$name
    libs_env "$@" >"$d.bare" 2>"$d.bare.err" || { say "  bare run failed:"; tail -5 "$d.bare.err" >&2; return 1; }
    rm -rf "$d.tr"
    EXPECT_CUTAP=1 libs_env "$CUTAP" trace -o "$d.tr" -- "$@" >"$d.out" 2>"$d.err"
    local st=$?
    [ $st = 0 ] || { say "  run under cutap trace: status $st"; tail -5 "$d.err" >&2; return 1; }
    diff "$d.bare" "$d.out" >&2 || { say "  output under cutap (>) differs from the bare run's (<)"; return 1; }
    "$CUTAP" report --tree --format csv "$d.tr" >"$d.csv" || return 1
    awk -F, 'NR > 1 { print $1 "," $2 "," $4 "," $5 }' "$d.csv" | sort >"$d.tree"
    diff <(printf '%s\n' "$want" | sort) "$d.tree" >&2 || { say "  call tree: want (<), recorded (>)"; return 1; }
    "$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || return 1
    python3 - "$d.jsonl" "$want" <<'PY' || return 1
import json, sys
calls = [c for c in map(json.loads, open(sys.argv[1])) if c["type"] == "call"]
byid = {c["id"]: c for c in calls}
def chain(c):
    out = [c["name"]]
    while c.get("parent") is not None:
        c = byid[c["parent"]]
        out.append(c["name"])
    return " < ".join(out)
got = sorted(chain(c) for c in calls if c["name"] in ("cuMemAlloc_v2", "cuLaunchKernel", "cublasLtMatmul"))
want = ["cuMemAlloc_v2 < cudaMalloc"]
if "cublasSgemm_v2" in sys.argv[2]:
    want += ["cuLaunchKernel < cublasLtMatmul < cublasGemmEx", "cuLaunchKernel < cublasLtMatmul < cublasSgemm_v2",
             "cublasLtMatmul < cublasGemmEx", "cublasLtMatmul < cublasSgemm_v2"]
assert got == sorted(want), got
layer = lambda n: "runtime" if n.startswith("cuda") else "cublasLt" if n.startswith("cublasLt") else \
    "cublas" if n.startswith("cublas") else "driver"
assert all(c["layer"] == layer(c["name"]) for c in calls), [(c["name"], c["layer"]) for c in calls]
PY
    # the dump, as names indented by depth, in order
    "$CUTAP" dump "$d.tr" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/(.*//' | tr '\n' '/' >"$d.dump" || return 1
    grep -q '^cudaMalloc/  cuGetProcAddress_v2/' "$d.dump" && grep -q '/  cuMemAlloc_v2/cudaMalloc/cudaMemcpy/  cuMemcpyHtoD_v2/' "$d.dump" \
        || { say "  dump: cudaMalloc's nested calls not indented under it:"; head -c 300 "$d.dump" >&2; return 1; }
    case $want in *cublasSgemm_v2*)
        grep -q '/cublasSgemm_v2/  cublasLtMatmul/    cuLaunchKernel/cublasGemmEx/' "$d.dump" \
            || { say "  dump: cublasSgemm_v2 > cublasLtMatmul > cuLaunchKernel not indented so"; return 1; }
    esac
}

for link in lazy now pie; do
    eval "case_libs_link_$link() {
        # The program refers to the libraries' versioned names (as it does
        # to the real ones); cutap's unversioned definitions bind them.
        nm -D \$T/t_libs_$link | grep -q ' U cudaMalloc@libcudart.so.13\$' && nm -D \$T/t_libs_$link | grep -q ' U cublasSgemm_v2@libcublas.so.13\$' \\
            || { say '  no versioned references'; return 1; }
        libs_traced libs_$link \"\$LIBS_TREE\" \$T/t_libs_$link link || return 1
        LD_LIBRARY_PATH=\$FL:\$LD_LIBRARY_PATH traced_equal libs_log_$link timeout 60 \$T/t_libs_$link link
    }"
done
case_libs_dlopen_soname() { libs_traced libs_dl1 "$LIBS_TREE" $T/t_libs_dl soname; }
case_libs_dlopen_abspath() { libs_traced libs_dl2 "$LIBS_TREE" $T/t_libs_dl "$FL"; }

case_libs_unused_never_loaded() {
    # The program opens libcudart.so.13 only: cutap loads none of the
    # others (all of them on LD_LIBRARY_PATH), nor does it after the
    # program linked with cuBLAS ran.
    libs_traced libs_rt "$LIBS_RT_TREE" $T/t_libs_dl soname rt || return 1
    grep -qx 'loaded: libcuda.so.1 libcudart.so.13' "$WORK/libs_rt.out" || { tail -1 "$WORK/libs_rt.out" >&2; return 1; }
    EXPECT_CUTAP=1 LD_PRELOAD=$LIB libs_env $T/t_libs_pie link >"$WORK/libs_rt2.out" || return 1
    grep -qx 'loaded: libcublas.so.13 libcublasLt.so.13 libcuda.so.1 libcudart.so.13' "$WORK/libs_rt2.out" \
        || { tail -1 "$WORK/libs_rt2.out" >&2; return 1; }
}

case_libs_stat() {
    # cutap stat counts the calls of every layer, nested ones included.
    EXPECT_CUTAP=1 libs_env "$CUTAP" stat -o "$WORK/ls.txt" -- $T/t_libs_now link >/dev/null || return 1
    local row
    # calls errors layer name
    for row in '2 1 runtime cudaMalloc' '2 0 runtime cudaMemcpy' '1 0 runtime cudaFree' '1 0 cublas cublasSgemm_v2' \
        '2 0 cublasLt cublasLtMatmul' '2 0 driver cuLaunchKernel' '1 0 driver cuMemAlloc_v2' '5 0 driver cuGetProcAddress_v2'; do
        awk -v w="$row" '$3 " " $4 " " $(NF-1) " " $NF == w {ok=1} END {exit !ok}' "$WORK/ls.txt" \
            || { say "  no row '$row':"; cat "$WORK/ls.txt" >&2; return 1; }
    done
}

case_libs_stat_pointer_result_is_no_error() {
    # cudaGetErrorString returns a pointer, not a status: never an error,
    # on the fused counting path as on the callback path.
    local nf
    for nf in 0 1; do
        EXPECT_CUTAP=1 CUTAP_NO_FUSED=$nf libs_env "$CUTAP" stat -o "$WORK/lp$nf.txt" -- $T/t_libs_now link >/dev/null || return 1
        awk '$NF == "cudaGetErrorString" && $3 == 2 && $4 == 0 {ok=1} END {exit !ok}' "$WORK/lp$nf.txt" \
            || { say "  CUTAP_NO_FUSED=$nf: 2 calls and 0 errors wanted:"; grep -e Errors -e cudaGetErrorString "$WORK/lp$nf.txt" >&2; return 1; }
    done
}

case_libs_trace_device_pointers() {
    # The GEMMs on matrices in device memory, as in a real program (the fake
    # driver's device pointers are unmapped, like a real GPU's): tracing
    # must not read them, and change nothing.
    libs_env $T/t_libs_pie link dev >"$WORK/ldev.bare" 2>&1 || { tail -3 "$WORK/ldev.bare" >&2; return 1; }
    rm -rf "$WORK/ldev"
    EXPECT_CUTAP=1 libs_env "$CUTAP" trace -o "$WORK/ldev" -- $T/t_libs_pie link dev >"$WORK/ldev.out" 2>"$WORK/ldev.err"
    local st=$?
    [ $st = 0 ] || { say "  status $st under cutap trace; last calls recorded:"; "$CUTAP" dump "$WORK/ldev" 2>&1 | tail -2 >&2; return 1; }
    diff "$WORK/ldev.bare" "$WORK/ldev.out" >&2
}

# --- NVTX: cutap as the NVTX injection library (issue #5) ------------------
# t_nvtx (tests/t_nvtx.c) annotates driver calls with NVTX 3 ranges and
# marks; it is built only where the nvtx3 headers are (else: skipped).
# nvtx_names FILE: a dump reduced to indentation and names ("range" and
# "mark" lines keep their message and notes, calls lose their arguments).
nvtx_names() {
    sed -E 's/^[0-9.]+ \[[0-9/]+\] //; /^ *(range|mark) /{s/ <[^>]*>//;b}; s/\(.*$//' "$1"
}

case_nvtx_trace_env() {
    # cutap trace makes the preloaded libcutap.so the NVTX injection
    # library (absolute path); --no-nvtx does not; a value the user set is
    # left as it is, and nothing is said about it.
    local got want; want=$(realpath "$LIB")
    got=$("$CUTAP" trace -o "$WORK/ne1" -- sh -c 'echo "$NVTX_INJECTION64_PATH"' 2>/dev/null) || return 1
    [ "$got" = "$want" ] || { say "  NVTX_INJECTION64_PATH='$got', want '$want'"; return 1; }
    got=$("$CUTAP" trace --no-nvtx -o "$WORK/ne2" -- sh -c 'echo "${NVTX_INJECTION64_PATH-unset}"' 2>/dev/null) || return 1
    [ "$got" = unset ] || { say "  --no-nvtx: NVTX_INJECTION64_PATH='$got'"; return 1; }
    got=$(NVTX_INJECTION64_PATH=/opt/tool.so "$CUTAP" trace -o "$WORK/ne3" -- sh -c 'echo "$NVTX_INJECTION64_PATH"' 2>"$WORK/ne3.err") || return 1
    [ "$got" = /opt/tool.so ] && ! grep -qi nvtx "$WORK/ne3.err" || { say "  user's value: '$got'"; cat "$WORK/ne3.err" >&2; return 1; }
    "$CUTAP" stat --no-nvtx -- true 2>"$WORK/ne4.err"; [ $? = 2 ] && grep -q 'option of cutap trace' "$WORK/ne4.err" \
        && "$CUTAP" trace --help | grep -q -- '--no-nvtx'
}

case_nvtx_ranges() {
    [ -x $T/t_nvtx ] || return 77
    $T/t_nvtx >"$WORK/nv.bare" 2>&1 || { cat "$WORK/nv.bare" >&2; return 1; }
    # EXPECT_NVTX: t_nvtx checks what NVTX returned (levels, ids): cutap's values
    EXPECT_NVTX=1 "$CUTAP" trace -o "$WORK/nv" -- $T/t_nvtx >"$WORK/nv.out" 2>"$WORK/nv.err" \
        || { cat "$WORK/nv.err" >&2; return 1; }
    diff "$WORK/nv.bare" "$WORK/nv.out" >&2 || { say "  output changed under cutap trace"; return 1; }
    called "$WORK/nv.out" >"$WORK/nv.called"
    report_names "$WORK/nv" | grep '^cu' >"$WORK/nv.seen" && same_counts "$WORK/nv.called" "$WORK/nv.seen" || return 1
    # dump: the calls made inside a range indented under it, in time order
    # (the worker thread runs while main waits for it)
    "$CUTAP" dump "$WORK/nv" >"$WORK/nv.dump" || return 1
    nvtx_names "$WORK/nv.dump" >"$WORK/nv.names"
    cat >"$WORK/nv.want" <<'W'
cuInit
range "outer"
  nvtxRangePushA
  cuDriverGetVersion
  mark "tick"
  nvtxMarkA
  range "inner"
    nvtxRangePushA
    cuCtxGetCurrent
    nvtxRangePop
  nvtxRangePop
range "async" (start/end)
nvtxRangeStartA
cuDriverGetVersion
nvtxRangeEnd
range "worker"
  nvtxRangePushA
  cuDeviceGetCount
  nvtxRangePop
range "expush"
  nvtxRangePushA
  cuDriverGetVersion
  nvtxRangePop
nvtxDomainCreateA
nvtxDomainRegisterStringA
range "dompush"
  nvtxDomainRangePushEx
  nvtxDomainRegisterStringA
  range "registered"
    nvtxDomainRangePushEx
    cuCtxGetCurrent
    nvtxDomainRangePop
  nvtxDomainRangePop
nvtxRangePop
W
    diff "$WORK/nv.want" "$WORK/nv.names" >&2 || { say "  dump (want <, got >)"; return 1; }
    # the summary counts calls, not ranges
    "$CUTAP" report --format csv "$WORK/nv" | grep -q -e '^range,' -e '^mark,' && { say "  ranges in the summary"; return 1; }
    # report --tree: ranges are path elements (layer range; marks: mark)
    "$CUTAP" report --tree --format csv "$WORK/nv" >"$WORK/nv.csv" || return 1
    local p
    for p in 'outer > inner > cuCtxGetCurrent,driver,cuCtxGetCurrent,2,1,' 'outer > inner,range,inner,1,1,' \
        'outer > cuDriverGetVersion,driver,' 'outer > tick,mark,tick,1,1,0,0,0' 'worker > cuDeviceGetCount,driver,' \
        'expush > cuDriverGetVersion,driver,' 'dompush > registered > cuCtxGetCurrent,driver,' 'async,range,async,0,1,'; do
        grep -qF -- "$p" "$WORK/nv.csv" || { say "  no tree row '$p'"; cat "$WORK/nv.csv" >&2; return 1; }
    done
    command -v python3 >/dev/null || return 0
    for p in perfetto jsonl sqlite; do "$CUTAP" export --format $p -o "$WORK/nv.$p" "$WORK/nv" || return 1; done
    python3 - "$WORK" <<'PY'
import json, sqlite3, sys
from decimal import Decimal
w = sys.argv[1]
ev = json.load(open(w + "/nv.perfetto"), parse_float=Decimal)["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
def one(name, cat):
    s = [e for e in x if e["name"] == name and e["cat"] == cat]
    assert len(s) == 1, (name, s)
    return s[0]
def inside(a, b):   # a within b, same track
    return (a["pid"], a["tid"]) == (b["pid"], b["tid"]) and b["ts"] <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"]
outer, inner = one("outer", "range"), one("inner", "range")
calls = [e for e in x if e["cat"] not in ("range", "mark")]
ctx = [e for e in calls if e["name"] == "cuCtxGetCurrent"][0]
ver = [e for e in calls if e["name"] == "cuDriverGetVersion"][0]
assert inside(ctx, inner) and inside(inner, outer) and inside(ver, outer) and not inside(ver, inner), (outer, inner, ctx, ver)
assert inside(one("registered", "range"), one("dompush", "range"))
for n in ("worker", "expush"):
    one(n, "range")
b = [e for e in ev if e.get("ph") in ("b", "e") and e["name"] == "async"]
assert sorted(e["ph"] for e in b) == ["b", "e"] and b[0]["id"] == b[1]["id"], b
assert [e for e in ev if e.get("ph") == "i" and e["name"] == "tick" and e["cat"] == "mark"], "mark"
lines = [json.loads(l) for l in open(w + "/nv.jsonl")]
byid = {l["id"]: l for l in lines}
ranges = [l for l in lines if l["type"] == "range"]
assert sorted(l["name"] for l in ranges) == ["async", "dompush", "expush", "inner", "outer", "registered", "worker"], ranges
assert [l["name"] for l in lines if l["type"] == "mark"] == ["tick"]
c = [l for l in lines if l["type"] == "call" and l["name"] == "cuCtxGetCurrent"][0]
assert byid[c["parent"]]["name"] == "inner" and byid[byid[c["parent"]]["parent"]]["name"] == "outer", c
assert c["depth"] == 2 and byid[c["parent"]]["nested"] is True
db = sqlite3.connect(w + "/nv.sqlite")
rows = db.execute("SELECT c.name, p.name, pp.name, c.depth FROM calls_named c JOIN calls_named p ON p.id = c.parent_id "
                  "JOIN calls_named pp ON pp.id = p.parent_id WHERE c.name = 'cuCtxGetCurrent' AND p.layer = 'range'").fetchall()
assert ("cuCtxGetCurrent", "inner", "outer", 2) in rows, rows
n = db.execute("SELECT count(*) FROM calls WHERE layer = 'range' AND result IS NULL").fetchone()[0]
assert n == 7, n
PY
}

case_nvtx_no_nvtx() {
    # --no-nvtx: no NVTX call recorded; a library the user named instead
    # (here none: NVTX then attaches nothing) is used; the program's output
    # and the driver calls recorded are the same.
    [ -x $T/t_nvtx ] || return 77
    $T/t_nvtx >"$WORK/nn.bare" 2>&1 || return 1
    local how
    for how in opt env; do
        if [ $how = opt ]; then "$CUTAP" trace --no-nvtx -o "$WORK/nn$how" -- $T/t_nvtx >"$WORK/nn.out" 2>"$WORK/nn.err"
        else NVTX_INJECTION64_PATH=$WORK/none.so "$CUTAP" trace -o "$WORK/nn$how" -- $T/t_nvtx >"$WORK/nn.out" 2>"$WORK/nn.err"; fi
        [ $? = 0 ] || { cat "$WORK/nn.err" >&2; return 1; }
        diff "$WORK/nn.bare" "$WORK/nn.out" >&2 || return 1
        report_names "$WORK/nn$how" >"$WORK/nn.seen" || return 1
        grep -q '^nvtx' "$WORK/nn.seen" && { say "  $how: NVTX calls recorded"; return 1; }
        called "$WORK/nn.out" >"$WORK/nn.called"
        same_counts "$WORK/nn.called" "$WORK/nn.seen" || return 1
        "$CUTAP" dump "$WORK/nn$how" | grep -q -e ' range "' -e ' mark "' && { say "  $how: ranges in the dump"; return 1; }
    done
    return 0
}

case_nvtx_reader_unbalanced() {
    # What the reader must survive from a real program: pops with nothing
    # open, an end of an unknown id, a start never ended, 300 nested ranges,
    # ranges open at exit (unfinished: they end, for a viewer, at their
    # thread's last call). Also under AddressSanitizer when built.
    [ -x $T/t_nvtx ] || return 77
    $T/t_nvtx hostile >"$WORK/nh.bare" 2>&1 || return 1
    "$CUTAP" trace -o "$WORK/nh" -- $T/t_nvtx hostile >"$WORK/nh.out" 2>/dev/null || return 1
    diff "$WORK/nh.bare" "$WORK/nh.out" >&2 || return 1
    "$CUTAP" dump "$WORK/nh" >"$WORK/nh.dump" || return 1
    nvtx_names "$WORK/nh.dump" >"$WORK/nh.names"
    local pad; pad=$(printf '%*s' 598 '')
    grep -q ' range "never ended" <unfinished> (start/end)$' "$WORK/nh.dump" || { say "  no unfinished start/end range"; return 1; }
    grep -qx "${pad}range \"level 299\"" "$WORK/nh.names" && grep -qx "${pad}  cuDriverGetVersion" "$WORK/nh.names" \
        || { say "  level 299 not at depth 299"; return 1; }
    [ "$(grep -c '^nvtxRangePop$' "$WORK/nh.names")" = 2 ] || { say "  pops with none open not at the top"; return 1; }
    tail -5 "$WORK/nh.names" | tr '\n' '|' | grep -qx 'range "left open"|  nvtxRangePushA|  range "left open too"|    nvtxRangePushA|    cuDriverGetVersion|' \
        || { say "  ranges left open:"; tail -5 "$WORK/nh.names" >&2; return 1; }
    "$CUTAP" report --tree --format csv "$WORK/nh" | grep -q '^.*level 299 > cuDriverGetVersion,driver,cuDriverGetVersion,300,1,' \
        || { say "  tree: no call at depth 300"; return 1; }
    local fmt
    for fmt in perfetto jsonl sqlite; do "$CUTAP" export --format $fmt -o "$WORK/nh.$fmt" "$WORK/nh" || return 1; done
    if command -v python3 >/dev/null; then
        python3 - "$WORK" <<'PY' || return 1
import json, sys
from decimal import Decimal
w = sys.argv[1]
ev = json.load(open(w + "/nh.perfetto"), parse_float=Decimal)["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
last = max(e["ts"] + e["dur"] for e in x if e["cat"] not in ("range", "mark"))
lo = [e for e in x if e["name"] == "left open (unfinished)"]
assert len(lo) == 1 and lo[0]["ts"] + lo[0]["dur"] == last, (lo, last)
assert len([e for e in x if e["cat"] == "range" and e["name"].startswith("level ")]) == 300
lines = [json.loads(l) for l in open(w + "/nh.jsonl")]
assert sorted(l["name"] for l in lines if l.get("unfinished") and l["type"] == "range") == ["left open", "left open too", "never ended"]
PY
    fi
    local A=$B/asan/cutap
    [ -x "$A" ] || return 0
    local SAN_LEAKS; SAN_LEAKS=$(san_leaks "$A")
    for fmt in "dump" "report --tree" "report" "export --force --format perfetto -o $WORK/nh.a.json" \
        "export --force --format jsonl -o $WORK/nh.a.jsonl" "export --force --format sqlite -o $WORK/nh.a.db"; do
        # shellcheck disable=SC2086
        sanitized "$A" $fmt "$WORK/nh" >/dev/null 2>"$WORK/nh.san" || { say "  ASan cutap $fmt:"; head -30 "$WORK/nh.san" >&2; return 1; }
        if grep -q -e 'Sanitizer' -e 'runtime error' "$WORK/nh.san"; then head -30 "$WORK/nh.san" >&2; return 1; fi
    done
    return 0
}

case_nvtx_reader_fuzz_asan() {
    # The reader's NVTX pairing on damaged files: the fuzzer (see
    # reader_fuzz_asan) on traces with ranges, marks and registered strings.
    [ -x $T/fuzz_reader ] && [ -x $T/t_nvtx ] || return 77
    local d=$WORK/nfz f m i=0
    rm -rf "$d"; mkdir -p "$d/seeds"
    for m in "" hostile; do
        i=$((i + 1))
        "$CUTAP" trace -o "$d/t$i" -- $T/t_nvtx $m >/dev/null 2>&1 || { say "  cutap trace t_nvtx $m failed"; return 1; }
        for f in "$d/t$i"/*.cutap; do cp "$f" "$d/seeds/$i-${f##*/}"; done
    done
    local SAN_LEAKS; SAN_LEAKS=$(san_leaks $T/fuzz_reader) n=300
    sanitized timeout 300 $T/fuzz_reader -d "$d/run" $FUZZ_SEED $n "$d/seeds"/*.cutap 2>"$d/fuzz.err"
    local rc=$?
    if [ $rc != 0 ] || ! grep -q "^fuzz: $n iterations, " "$d/fuzz.err"; then
        say "  fuzz_reader exit $rc"; head -60 "$d/fuzz.err" >&2
        [ -f "$d/run/last.cutap" ] && cp "$d/run/last.cutap" "$B/fuzz_reader-nvtx-failure.cutap" \
            && say "  the input is kept in $B/fuzz_reader-nvtx-failure.cutap"
        return 1
    fi
    grep '^fuzz: ' "$d/fuzz.err" >&2
}

# --- the layers above the driver in the command (issue #5, items 2, 3, 6) --
# $T/t_layers calls stand-ins of cudart, cuBLAS and NCCL (tests/lib_layers.c,
# in $T/rt with their real sonames); the cudart one calls the fake driver.
# It prints CALL for each call, the stand-ins for the driver calls they make.
layers_trace() {   # layers_trace NAME [cutap trace options]: trace it into $WORK/NAME
    local name=$1; shift
    rm -rf "$WORK/$name"
    "$CUTAP" trace "$@" -o "$WORK/$name" -- $T/t_layers >"$WORK/$name.out" 2>"$WORK/$name.err" \
        || { say "  cutap trace $* failed:"; tail -5 "$WORK/$name.err" >&2; return 1; }
}

case_layers_dump_decodes() {
    layers_trace ld || return 1
    "$CUTAP" dump "$WORK/ld" >"$WORK/ld.txt" || return 1
    local pat
    while IFS= read -r pat; do
        grep -qE -- "$pat" "$WORK/ld.txt" || { say "  no line matches: $pat"; cat "$WORK/ld.txt" >&2; return 1; }
    done <<'EOF'
\] cudaMalloc\(devPtr=0x[0-9a-f]+→0x7f[0-9a-f]+, size=4096\) = cudaSuccess <
\] cudaMemcpy\(dst=0x7f[0-9a-f]+, src=0x[0-9a-f]+, count=4096, kind=cudaMemcpyHostToDevice\) = cudaSuccess <
\] cudaMalloc\(devPtr=0x[0-9a-f]+, size=1099511627776\) = cudaErrorMemoryAllocation \(2\) <
\] cudaGetErrorString\(error=cudaErrorMemoryAllocation\) = 0x[0-9a-f]+ <
\] cublasGemmEx\(handle=0x1234, transa=CUBLAS_OP_N, transb=CUBLAS_OP_T, m=64, n=32, k=16, alpha=0x[0-9a-f]+, A=0x7f[0-9a-f]+, Atype=CUDA_R_16F, lda=64, B=0x7f[0-9a-f]+, Btype=CUDA_R_16F, ldb=32, beta=0x[0-9a-f]+, C=0x7f[0-9a-f]+, Ctype=CUDA_R_32F, ldc=64, computeType=CUBLAS_COMPUTE_32F, algo=CUBLAS_GEMM_[A-Z]+\) = CUBLAS_STATUS_SUCCESS <
\] cublasGemmEx\(.*, m=-1, .*\) = CUBLAS_STATUS_INVALID_VALUE \(7\) <
\] ncclAllReduce\(sendbuff=0x7f[0-9a-f]+, recvbuff=0x7f[0-9a-f]+, count=1024, datatype=ncclFloat32, op=ncclSum, comm=0x5678, stream=NULL\) = ncclSuccess <
EOF
    # The driver calls a runtime call makes: the next lines, one level deeper.
    grep -A1 '\] cudaMalloc(.*size=4096)' "$WORK/ld.txt" | tail -1 \
        | grep -qE '\]   cuMemAlloc_v2\(dptr=0x[0-9a-f]+→0x7f[0-9a-f]+, bytesize=4096\) = CUDA_SUCCESS <' \
        && grep -A1 '\] cudaMemcpy(' "$WORK/ld.txt" | tail -1 | grep -q '\]   cuMemcpyHtoD_v2(dstDevice=0x7f' \
        || { say "  driver calls not indented under their runtime call:"; cat "$WORK/ld.txt" >&2; return 1; }
    # The exports decode like dump: "decoded" is what dump prints between
    # the parentheses, "status" the result by name; "args" stays the raw words.
    command -v python3 >/dev/null || return 0
    local f
    for f in jsonl sqlite perfetto; do "$CUTAP" export --format $f -o "$WORK/ld.$f" "$WORK/ld" || return 1; done
    python3 - "$WORK" <<'PY'
import json, sqlite3, sys
w = sys.argv[1]
dump = open(w + "/ld.txt", encoding="utf-8").read().splitlines()
calls = [json.loads(l) for l in open(w + "/ld.jsonl", encoding="utf-8") if '"call"' in l]
assert len(calls) == len(dump) == 9, (len(calls), len(dump))
for c, line in zip(calls, dump):     # both in time order
    assert "%s(%s) = %s" % (c["name"], c["decoded"], c["status"]) in line, (c, line)
by = {}
for c in calls:
    by.setdefault(c["name"], []).append(c)
m = by["cudaMemcpy"][0]
assert m["layer"] == "runtime" and m["status"] == "cudaSuccess" and m["args"][2:] == ["0x1000", "0x1"], m
big = by["cudaMalloc"][1]
assert big["result"] == 2 and big["status"] == "cudaErrorMemoryAllocation", big
assert by["cudaGetErrorString"][0]["status"].startswith("0x"), by["cudaGetErrorString"]
inner = by["cuMemAlloc_v2"][0]
assert inner["depth"] == 1 and inner["parent"] == by["cudaMalloc"][0]["id"], inner
assert "→0x7f" in inner["decoded"], inner     # UTF-8 kept as is in JSON
db = sqlite3.connect(w + "/ld.sqlite")
rows = db.execute("SELECT layer, status, decoded, args FROM calls_named WHERE name = 'ncclAllReduce'").fetchall()
assert rows == [("nccl", "ncclSuccess", "sendbuff=%s, recvbuff=%s, count=1024, datatype=ncclFloat32, op=ncclSum, "
                 "comm=0x5678, stream=NULL" % (m["args"][0], m["args"][0]), rows[0][3])], rows
assert rows[0][3].split()[3:5] == ["0x7", "0x0"], rows
layers = {r[0] for r in db.execute("SELECT DISTINCT layer FROM calls")}
assert layers == {"driver", "runtime", "cublas", "nccl"}, layers
ev = [e for e in json.load(open(w + "/ld.perfetto", encoding="utf-8"))["traceEvents"] if e.get("ph") == "X"]
g = [e for e in ev if e["name"] == "cublasGemmEx"]
assert [e["cat"] for e in g] == ["cublas", "cublas"], g
assert [e["args"]["status"] for e in g] == ["CUBLAS_STATUS_SUCCESS", "CUBLAS_STATUS_INVALID_VALUE"], g
assert "computeType=CUBLAS_COMPUTE_32F" in g[0]["args"]["decoded"], g
PY
}

case_layers_errors_counted() {
    # A result is an error when it is a status other than success, in every
    # layer; a pointer result (cudaGetErrorString) never is.
    layers_trace le || return 1
    "$CUTAP" report --format csv "$WORK/le" >"$WORK/le.csv" || return 1
    local row
    for row in runtime,cudaMalloc,2,1, runtime,cudaMemcpy,1,0, runtime,cudaGetErrorString,1,0, \
        cublas,cublasGemmEx,2,1, nccl,ncclAllReduce,1,0, driver,cuMemAlloc_v2,1,0, driver,cuMemcpyHtoD_v2,1,0,; do
        grep -q "^$row" "$WORK/le.csv" || { say "  no row $row"; cat "$WORK/le.csv" >&2; return 1; }
    done
    "$CUTAP" report "$WORK/le" >"$WORK/le.txt" || return 1
    grep -qE '^ +[0-9.]+ +[0-9]+ +2 +1 .* runtime +cudaMalloc$' "$WORK/le.txt" \
        && grep -qE ' nccl +ncclAllReduce$' "$WORK/le.txt" || { cat "$WORK/le.txt" >&2; return 1; }
    # the call tree: each driver call under the runtime call that made it
    "$CUTAP" report --tree --format csv "$WORK/le" >"$WORK/le.tree" || return 1
    grep -q '^cudaMalloc > cuMemAlloc_v2,driver,cuMemAlloc_v2,1,1,' "$WORK/le.tree" \
        && grep -q '^cudaMemcpy > cuMemcpyHtoD_v2,driver,cuMemcpyHtoD_v2,1,1,' "$WORK/le.tree" \
        || { cat "$WORK/le.tree" >&2; return 1; }
}

case_layers_filter() {
    # -e layer=NAME takes every layer's name, in any case; the driver calls
    # a runtime call makes are left out with it when only runtime is kept.
    recorded_equal lf0 $T/t_layers || return 1
    layers_trace lf1 -e layer=runtime || return 1
    called "$WORK/lf1.out" | grep '^cuda' >"$WORK/lf1.called"
    report_names "$WORK/lf1" >"$WORK/lf1.seen" && same_counts "$WORK/lf1.called" "$WORK/lf1.seen" || return 1
    layers_trace lf2 -e 'layer=CUBLAS,layer=nccl' || return 1
    called "$WORK/lf2.out" | grep -e '^cublas' -e '^nccl' >"$WORK/lf2.called"
    report_names "$WORK/lf2" >"$WORK/lf2.seen" && same_counts "$WORK/lf2.called" "$WORK/lf2.seen" || return 1
    layers_trace lf3 -e '!layer=Runtime' || return 1
    called "$WORK/lf3.out" | grep -v '^cuda' >"$WORK/lf3.called"
    report_names "$WORK/lf3" >"$WORK/lf3.seen" && same_counts "$WORK/lf3.called" "$WORK/lf3.seen" || return 1
    # a name that is no layer: refused with the list of names
    "$CUTAP" trace -o "$WORK/lf4" -e 'layer=cudart' -- true 2>"$WORK/lf4.err"; [ $? = 2 ] || return 1
    grep -q 'layer= takes driver, hidden, runtime, cublas, cublasLt, cudnn, nccl, cufft, curand, cusparse, cusolver, nvrtc, nvJitLink, nvtx' \
        "$WORK/lf4.err" || { cat "$WORK/lf4.err" >&2; return 1; }
    "$CUTAP" --help | grep -q 'LAYER: driver, hidden'
}

case_report_runtime_note() {
    # A process with driver calls but no runtime call recorded: its cudart
    # is likely static, which no symbol interposes; the report says so.
    "$CUTAP" trace -o "$WORK/rn" -- $T/t_paths_pie plt >/dev/null 2>&1 || return 1
    local pid; pid=$("$CUTAP" report --by process --format csv "$WORK/rn" | awk -F, 'NR == 2 {print $14}')
    local want="^note: process $pid made CUDA driver calls but no runtime (cudart) calls were recorded: .*--runtime=cupti"
    "$CUTAP" report "$WORK/rn" >"$WORK/rn.txt" 2>"$WORK/rn.err" || return 1
    tail -1 "$WORK/rn.txt" | grep -q "$want" || { cat "$WORK/rn.txt" >&2; return 1; }
    "$CUTAP" report --tree "$WORK/rn" | tail -1 | grep -q "$want" || return 1
    # CSV and JSON stay parseable: the note goes to stderr
    "$CUTAP" report --format csv "$WORK/rn" >"$WORK/rn.csv" 2>"$WORK/rn.err" || return 1
    ! grep -q note "$WORK/rn.csv" && grep -q "$want" "$WORK/rn.err" || return 1
    "$CUTAP" report --format json "$WORK/rn" 2>/dev/null | python3 -c 'import json, sys; json.load(sys.stdin)' || return 1
    # runtime calls recorded: no note; both in one directory: the other one only
    layers_trace rn2 || return 1
    "$CUTAP" report "$WORK/rn2" >"$WORK/rn2.txt" 2>&1 || return 1
    ! grep -q 'note:' "$WORK/rn2.txt" || { say "  note with runtime calls"; return 1; }
    cp "$WORK"/rn2/*.cutap "$WORK/rn/"
    "$CUTAP" report "$WORK/rn" | grep -c '^note:' | grep -qx 1 && "$CUTAP" report "$WORK/rn" | grep -q "$want"
}

case_layers_unknown_layer_number() {
    # A layer number this command does not know (a newer library, a damaged
    # file) prints as layer<N>, its calls undecoded, nothing crashes. The
    # file is made a version 3 one (version 4 names its layers, and the
    # name wins: case reader_v4_self_describing).
    command -v python3 >/dev/null || return 77
    layers_trace lu || return 1
    python3 - "$WORK"/lu/*.cutap <<'PY' || return 1
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<I", d, 8)[0] == 4
struct.pack_into("<I", d, 8, 3)
done = set()
for off in range(4096, len(d) - 64, 64):
    # meta record (kind 2), ID_NAME (sub 1): the key (offset 8) is the layer
    if d[off] == 2 and d[off + 1] == 1:
        text = bytes(d[off + 24:off + 64]).split(b"\0")[0]
        key = {b"cudaMalloc": 99, b"ncclAllReduce": 2**64 - 1}.get(text)
        if key is not None:
            struct.pack_into("<Q", d, off + 8, key)
            done.add(text)
assert len(done) == 2, done
open(sys.argv[1], "wb").write(d)
PY
    "$CUTAP" report --format csv "$WORK/lu" >"$WORK/lu.csv" || return 1
    grep -q '^layer99,cudaMalloc,2,' "$WORK/lu.csv" && grep -q '^layer2147483647,ncclAllReduce,1,' "$WORK/lu.csv" \
        || { cat "$WORK/lu.csv" >&2; return 1; }
    "$CUTAP" dump "$WORK/lu" | grep -qE '\] cudaMalloc\(0x[0-9a-f]+, 0x1000\) = 0x0 <' || return 1
    "$CUTAP" export --format jsonl -o "$WORK/lu.jsonl" "$WORK/lu" && grep -q '"layer":"layer99","name":"cudaMalloc"' "$WORK/lu.jsonl"
}

case_libs_global_probe_unchanged() {
    # A program asking the global scope whether a library is loaded
    # (ctypes.CDLL(None), dlsym(RTLD_DEFAULT)) gets the same answer under
    # cutap, whose own exports of those names must not say yes.
    command -v python3 >/dev/null || return 77
    local py='import ctypes
g = ctypes.CDLL(None)
print(hasattr(g, "cublasCreate_v2"), hasattr(g, "ncclGetVersion"))
ctypes.CDLL("libcudart.so.13")
print(hasattr(g, "cudaMalloc"))
ctypes.CDLL("libcublas.so.13", mode=ctypes.RTLD_GLOBAL)
print(hasattr(g, "cublasCreate_v2"))'
    local want got
    want=$(libs_env python3 -c "$py") || return 1
    got=$(LD_PRELOAD=$LIB libs_env python3 -c "$py") || return 1
    [ "$want" = "$(printf 'False False\nFalse\nTrue')" ] || { say "  bare run not as expected: $(echo $want)"; return 1; }
    [ "$got" = "$want" ] || { say "  bare: $(echo $want) / under cutap: $(echo $got)"; return 1; }
}

# --- older CUDA majors (issue #11) ------------------------------------------
case_wrapper_abi() {
    # Every exported entry with a fast path through cutap_hot leaves the
    # caller's registers and stack untouched on the way to its target (a
    # caller of another major passes other arguments than the generated
    # signature declares): tests/tools/wrapper_abi.py reads the machine code.
    command -v objdump >/dev/null || return 77
    python3 tests/tools/wrapper_abi.py "$LIB" >"$WORK/abi.out" || { tail -20 "$WORK/abi.out" >&2; return 1; }
    say "  $(tail -1 "$WORK/abi.out")"
}

# A program built against CUDA 12 or 11 (gen/old_major_generator.py): each
# layer's old fake (libcudart.so.12, libcudnn.so.8, ...) has one function
# taking more arguments than 13.0 declares (three on the stack) and one
# taking fewer than 13.0's outputs (the others left holding an unmapped
# address); through the PLT (versioned references such as
# cudaMalloc@libcudart.so.12) and through dlopen + dlsym. Under cutap trace
# and cutap stat: the output and status of the bare run, every call
# recorded exactly once, the nested calls under their callers, and the
# calls of those layers recorded untyped (raw argument words).
old_major() {   # old_major ERA_MODE [WORK-NAME]
    local prog=$T/t_old$1 d=$WORK/${2:-old$1} major=${1%_*}
    libs_env "$prog" >"$d.bare" 2>"$d.bare.err" || { say "  bare run failed"; tail -5 "$d.bare.err" >&2; return 1; }
    rm -rf "$d.tr" "$d.st"
    libs_env "$CUTAP" trace -o "$d.tr" -- "$prog" >"$d.out" 2>"$d.err" || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; return 1; }
    diff "$d.bare" "$d.out" >&2 || { say "  output under cutap trace (>) differs from the bare run's (<)"; return 1; }
    libs_env "$CUTAP" stat -o "$d.st" -- "$prog" >"$d.sout" 2>"$d.serr" || { say "  cutap stat: status $?"; tail -5 "$d.serr" >&2; return 1; }
    diff "$d.bare" "$d.sout" >&2 || { say "  output under cutap stat (>) differs from the bare run's (<)"; return 1; }
    # plus the cublasLtMatmul the fake cublasSgemm_v2 makes
    { called "$d.bare"; echo cublasLtMatmul; } >"$d.called"
    "$CUTAP" report --format csv "$d.tr" | awk -F, 'NR > 1 && $1 != "driver" { for (i = 0; i < $3; i++) print $2 }' >"$d.seen"
    same_counts "$d.called" "$d.seen" || return 1
    # the calls that failed (each layer's 'out' function returns 1) are
    # errors in the trace and in counting mode, untyped as they are
    sed -n 's/^\([A-Za-z_0-9]*\) = 1$/\1/p' "$d.bare" | sort >"$d.failed"
    [ "$(wc -l <"$d.failed")" -ge 8 ] || { say "  fewer failing calls than layers"; return 1; }
    rm -rf "$d.cnt"
    CUTAP_COUNT=$d.cnt LD_PRELOAD=$LIB libs_env "$prog" >/dev/null 2>&1 || return 1
    local m
    for m in tr cnt; do
        "$CUTAP" report --format csv "$d.$m" 2>/dev/null | awk -F, 'NR > 1 && $1 != "driver" && $4 > 0 { print $2 }' | sort >"$d.$m.err"
        diff "$d.failed" "$d.$m.err" >&2 || { say "  $m: calls that failed (<) and calls counted as errors (>) differ"; return 1; }
    done
    "$CUTAP" report "$d.tr" 2>&1 >/dev/null | grep -q "note: process [0-9]*: libcudart.so.$major" \
        || { say "  report does not say the runtime layer is of another major"; return 1; }
    "$CUTAP" report --tree --format csv "$d.tr" | cut -d, -f1 >"$d.tree"
    for path in "cudaMalloc > cuMemAlloc_v2" "cudaFree > cuMemFree_v2" "cublasSgemm_v2 > cublasLtMatmul > cuLaunchKernel"; do
        grep -qx "$path" "$d.tree" || { say "  no call path '$path' in the tree"; cat "$d.tree" >&2; return 1; }
    done
    "$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || return 1
    python3 - "$d.jsonl" <<'PY' || return 1
import json, sys
calls = [c for c in map(json.loads, open(sys.argv[1])) if c.get("type") == "call"]
lib = [c for c in calls if c["layer"] != "driver"]
assert lib, "no library call recorded"
# 6 argument words each: the raw registers, not the 13.0 signature's
bad = [c["name"] for c in lib if len(c["args"]) != 6]
assert not bad, "library calls not recorded as raw words: %s" % bad[:5]
PY
}
for v in 12_plt 12_dl 11_plt 11_dl; do
    eval "case_old_major_$v() { old_major $v; }"
done

case_old_major_no_execmem() {
    # The same under a W^X policy (tests/lib_nowx.c: no executable memory
    # made at run time): the routes of another major's functions are
    # static code, so its calls are made and recorded (before: not made).
    LD_PRELOAD=$T/libnowx.so old_major 12_dl oldnowx
}

# A layer's library of another major arriving late (tests/t_old_late.c,
# tests/lib_cublas_min.c). no_cache CMD...: CMD in a mount namespace where
# the loader's cache is empty, so that no libcublas.so.13 of the system
# (the toolkit's) can be found: 77 where that cannot be made.
no_cache() { unshare -m sh -c 'mount --bind /dev/null /etc/ld.so.cache && exec "$0" "$@"' "$@"; }
no_cache_ok() {
    no_cache true 2>/dev/null || { say "  cannot make a mount namespace here (needs root): skipped"; return 77; }
}
# jsonl_calls FILE NAME: "result nargs" of each call of NAME, in order.
jsonl_calls() {
    python3 - "$1" "$2" <<'PY'
import json, sys
for c in map(json.loads, open(sys.argv[1])):
    if c.get("type") == "call" and c["name"] == sys.argv[2]:
        print(c["result"], len(c["args"]))
PY
}

# late_trace NAME ARGS...: t_old_late ARGS traced into $WORK/NAME.tr with
# the loader cache hidden; output in $WORK/NAME.out.
late_trace() {
    local d=$WORK/$1; shift
    rm -rf "$d.tr"
    no_cache "$CUTAP" trace -o "$d.tr" -- $T/t_old_late "$@" >"$d.out" 2>"$d.err" \
        || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; return 1; }
}

case_old_major_late() {
    # cublasAlloc called with 13.0's 3 arguments while no cuBLAS is loaded
    # (a typed call, not made), then libcublas.so.12's 9-argument one: the
    # untyped calls of the id do not use the typed calls' record plan (its
    # output capture would read the unmapped address the 12.x caller's
    # register holds: SIGSEGV before the fix).
    no_cache_ok || return 77
    local d=$WORK/oldlate
    late_trace oldlate late $T/min12/libcublas.so.12 || return 1
    [ "$(grep -c '^min12 cublasAlloc: 5a00 5a11 18 5a33 5a44 5a55 5a66 5a77 5a88$' "$d.out")" = 2 ] \
        || { say "  the 12.x library did not get the caller's 9 words twice"; cat "$d.out" >&2; return 1; }
    grep -qx 'cublasAlloc = 1' "$d.out" || { say "  the call before the library was loaded: status 1 expected"; return 1; }
    "$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || return 1
    # typed (3 words, status 1), then two untyped (6 raw words, status 0)
    [ "$(jsonl_calls "$d.jsonl" cublasAlloc | tr '\n' ,)" = "1 3,0 6,0 6," ] \
        || { say "  recorded calls (result nargs):"; jsonl_calls "$d.jsonl" cublasAlloc >&2; return 1; }
    "$CUTAP" report "$d.tr" 2>&1 >/dev/null | grep -q "note: process [0-9]*: libcublas.so.12" \
        || { say "  report does not say the cublas layer is of another major"; return 1; }
}

case_old_major_adopt_race() {
    # 4 threads call cublasAlloc with 9 arguments through the program's
    # reference while the main thread opens libcublas.so.12: a call that
    # took the typed path (the layer had no library) just before the layer
    # was adopted must not be made with 13.0's 3-argument signature; every
    # call made gets the caller's 9 words. Pass-through and trace, 3 runs each.
    no_cache_ok || return 77
    local d=$WORK/oldrace so=$T/min12/libcublas.so.12 i mode
    for i in 1 2 3; do
        for mode in pass trace; do
            rm -rf "$d.tr"
            if [ $mode = pass ]; then
                no_cache env LD_PRELOAD=$LIB $T/t_old_late race "$so" 4 >"$d.out" 2>"$d.err"
            else
                no_cache "$CUTAP" trace -o "$d.tr" -- $T/t_old_late race "$so" 4 >"$d.out" 2>"$d.err"
            fi || { say "  $mode run $i: status $?"; tail -5 "$d.err" >&2; return 1; }
            grep -q '^race: [1-9][0-9]* made, [1-9][0-9]* refused, 0 other$' "$d.out" \
                || { say "  $mode run $i: $(grep '^race' "$d.out")"; return 1; }
            if grep '^min12 cublasAlloc' "$d.out" | grep -vqx 'min12 cublasAlloc: 5a00 5a11 18 5a33 5a44 5a55 5a66 5a77 5a88'; then
                say "  $mode run $i: a call reached the library without the caller's words:"
                grep '^min12 cublasAlloc' "$d.out" | sort | uniq -c | sort -n | head -3 >&2
                return 1
            fi
        done
        # every call recorded: the refused ones and the ones made
        local made refused
        made=$(sed -n 's/^race: \([0-9]*\) made, \([0-9]*\) refused.*/\1/p' "$d.out")
        refused=$(sed -n 's/^race: \([0-9]*\) made, \([0-9]*\) refused.*/\2/p' "$d.out")
        [ "$("$CUTAP" report --format csv "$d.tr" | awk -F, '$2 == "cublasAlloc" { print $3 }')" = $((made + refused)) ] \
            || { say "  trace run $i: $((made + refused)) calls made, recorded:"; "$CUTAP" report --format csv "$d.tr" >&2; return 1; }
    done
}

case_old_major_reenter() {
    # A cuBLAS whose constructor calls its own API, loaded by cutap for the
    # program's first call: the constructor's call (cutap still adopting
    # the layer) is not made, gets status 1, and is recorded; the
    # program's call is made.
    local d=$WORK/oldre
    rm -rf "$d.tr"
    LD_LIBRARY_PATH=$T/min13 "$CUTAP" trace -o "$d.tr" -- $T/t_old_late reenter >"$d.out" 2>"$d.err" \
        || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; return 1; }
    printf '%s\n' 'CALL cublasGetVersion_v2' 'min13 constructor: cublasGetVersion_v2 = 1' \
        'cublasGetVersion_v2 = 0' 'version 13' done | diff - "$d.out" >&2 || { say "  output differs"; return 1; }
    "$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || return 1
    [ "$(jsonl_calls "$d.jsonl" cublasGetVersion_v2 | cut -d' ' -f1 | sort | tr '\n' ,)" = "0,1," ] \
        || { say "  recorded calls (result nargs):"; jsonl_calls "$d.jsonl" cublasGetVersion_v2 >&2; return 1; }
}

case_old_major_missing() {
    # Functions of 13.0 missing from the libcublas.so.12 the layer is bound
    # to: the layer's status (1) for cublasCreate_v2, 0 for
    # cublasGetCudartVersion (it has no status; was 500), both recorded.
    no_cache_ok || return 77
    local d=$WORK/oldmiss
    late_trace oldmiss missing $T/min12/libcublas.so.12 || return 1
    grep -qx 'cublasCreate_v2 = 1' "$d.out" && grep -qx 'cublasGetCudartVersion = 0' "$d.out" \
        || { say "  statuses:"; grep ' = ' "$d.out" >&2; return 1; }
    "$CUTAP" export --format jsonl -o "$d.jsonl" "$d.tr" || return 1
    [ "$(jsonl_calls "$d.jsonl" cublasCreate_v2 | cut -d' ' -f1)" = 1 ] \
        && [ "$(jsonl_calls "$d.jsonl" cublasGetCudartVersion | cut -d' ' -f1)" = 0 ] \
        || { say "  missing functions' calls not recorded with their statuses"; return 1; }
}

# --- issue #11: full disks, losses said, output safety, threads (recorder) ---
# A tmpfs of size $2 at $1, unmounted when the case ends; 77 (skip) where
# mounting is refused (not root, no tmpfs).
small_fs() {
    mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" 2>/dev/null \
        || { say "  cannot mount a tmpfs here (needs root): skipped"; return 77; }
    SMALL_FS+=("$1")
    trap 'for m in "${SMALL_FS[@]}"; do umount -l "$m"; done' EXIT
}
fill_fs() { dd if=/dev/zero of="$1/fill.$RANDOM" bs=4k >/dev/null 2>&1; sync; }
# bare_same NAME CMD...: run CMD bare, then with the environment given in
# $UNDER (words for env); its stdout, stderr and exit status must be the
# bare run's.
bare_same() {
    local name=$1; shift
    "$@" >"$WORK/$name.bo" 2>"$WORK/$name.be"; local want=$?
    env $UNDER "$@" >"$WORK/$name.o" 2>"$WORK/$name.e"; local got=$?
    [ $got = $want ] || { say "  $name: exit $got under cutap, $want bare"; tail -3 "$WORK/$name.e" >&2; return 1; }
    cmp -s "$WORK/$name.bo" "$WORK/$name.o" || { say "  $name: stdout differs"; return 1; }
    cmp -s "$WORK/$name.be" "$WORK/$name.e" || { say "  $name: stderr differs:"; head -3 "$WORK/$name.e" >&2; return 1; }
}
# Header fields of a trace file: flags stop_errno stop_reason lost_calls
hdr_loss() {
    python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(4096)
ver, = struct.unpack_from("<I", d, 8); flags, = struct.unpack_from("<I", d, 20)
# stop_errno: after magic, ten 32-bit fields, seven 64-bit ones, exit_code
# and reserved1, host, exe, cmdline and cutap_version
off = 8 + 4 * 10 + 8 * 7 + 8 + 64 + 256 + 1024 + 32
err, reason, clock, lost, names = struct.unpack_from("<iIQQQ", d, off)
print(ver, flags, err, reason, lost)
PY
}

case_rec_bad_settings_silent() {
    # A trace directory whose name is too long (absolute, or relative
    # under a deep working directory, where it cannot be made absolute)
    # and a bad CUTAP_STAT_TIMING, given to the library directly (cutap
    # trace and cutap stat refuse them before the command starts): the
    # program's output and stderr are the bare run's, nothing recorded
    # into a wrong place (was a warning on the program's stderr, and a
    # relative directory followed the program's chdir).
    local long deep rel
    long=/tmp/$(python3 -c "print('x' * 5000)")
    UNDER="CUTAP_TRACE=$long LD_PRELOAD=$LIB" bare_same bs1 $T/t_record many 300 || return 1
    UNDER="CUTAP_COUNT=$long LD_PRELOAD=$LIB" bare_same bs2 $T/t_record many 300 || return 1
    deep=$WORK/$(python3 -c "print('/'.join(['d' * 200] * 3))")
    rel=$(python3 -c "print('/'.join(['r' * 200] * 19))")
    mkdir -p "$deep" || return 1
    (cd "$deep" && UNDER="CUTAP_TRACE=$rel LD_PRELOAD=$LIB" bare_same bs3 $T/t_record many 300) || return 1
    [ ! -e "$deep/${rel%%/*}" ] || { say "  a relative directory was made"; return 1; }
    UNDER="CUTAP_COUNT=$WORK/bs4 CUTAP_STAT_TIMING=bogus LD_PRELOAD=$LIB" bare_same bs4 $T/t_record many 300 || return 1
}

case_rec_full_disk_before_start() {
    # The trace directory on a filesystem full before the program starts:
    # the program runs to its end as it does bare (same output, same
    # status, nothing on its stderr), with and without fallocate, trace and
    # count modes; cutap trace says no file could be made.
    local m=$WORK/fullfs; small_fs "$m" 1m || return $?
    mkdir -p "$m/t" "$m/c" "$m/n"; fill_fs "$m"
    UNDER="CUTAP_TRACE=$m/t LD_PRELOAD=$LIB" bare_same ff1 $T/t_record many 3000 || return 1
    UNDER="CUTAP_COUNT=$m/c LD_PRELOAD=$LIB" bare_same ff2 $T/t_record many 3000 || return 1
    UNDER="CUTAP_TRACE=$m/n LD_PRELOAD=$LIB:$T/libnofalloc.so" bare_same ff3 $T/t_record many 3000 || return 1
    UNDER="CUTAP_COUNT=$m/n LD_PRELOAD=$LIB:$T/libnofalloc.so" bare_same ff4 $T/t_record mix 300 || return 1
    "$CUTAP" trace -o "$m/cli" -- $T/t_record many 3000 >"$WORK/ff5.out" 2>"$WORK/ff5.err"; local rc=$?
    [ $rc = 0 ] && cmp -s "$WORK/ff1.bo" "$WORK/ff5.out" || { say "  cutap trace: exit $rc"; cat "$WORK/ff5.err" >&2; return 1; }
    grep -q 'No space left on device' "$WORK/ff5.err" || { cat "$WORK/ff5.err" >&2; return 1; }
    # cutap stat with its temporary directory there: the program as bare,
    # and no claim that no call was made.
    TMPDIR=$m "$CUTAP" stat -- $T/t_record many 3000 >"$WORK/ff6.out" 2>"$WORK/ff6.err"; rc=$?
    [ $rc = 0 ] && cmp -s "$WORK/ff1.bo" "$WORK/ff6.out" || { say "  cutap stat: exit $rc"; cat "$WORK/ff6.err" >&2; return 1; }
    grep -q 'No space left on device' "$WORK/ff6.err" && ! grep -q 'no CUDA calls$' "$WORK/ff6.err" \
        || { cat "$WORK/ff6.err" >&2; return 1; }
}

case_rec_enospc_mid_run() {
    # The trace outgrows its filesystem: recording stops, the program goes
    # on (same output and status as bare), the header says why and how
    # many calls were lost (recorded + lost = made), cutap trace says so.
    # Also without fallocate (zeros written first: no SIGBUS).
    local m=$WORK/midfs; small_fs "$m" 4m || return $?
    local pre
    for pre in "" ":$T/libnofalloc.so"; do
        rm -rf "$m"/*
        UNDER="CUTAP_TRACE=$m/p LD_PRELOAD=$LIB$pre" bare_same mr $T/t_record many 200000 || { say "  (preload $LIB$pre)"; return 1; }
        local f; f=$(ls "$m"/p/*.cutap) || return 1
        read -r ver flags err reason lost <<<"$(hdr_loss "$f")"
        [ "$ver" -ge 3 ] && [ $((flags & 4)) = 4 ] && [ "$err" = 28 ] && [ "$reason" = 1 ] \
            || { say "  header: version $ver flags $flags errno $err reason $reason"; return 1; }
        local rec; rec=$("$CUTAP" report --format csv "$m/p" 2>/dev/null | awk -F, '$2 == "cuCtxGetCurrent" {print $3}')
        [ -n "$rec" ] && [ $((rec + lost)) = 200000 ] && [ "$lost" -gt 0 ] \
            || { say "  recorded $rec + lost $lost != 200000"; return 1; }
        rm -rf "$m"/*
        "$CUTAP" trace -o "$m/cli" -- env LD_PRELOAD="$LIB$pre" $T/t_record many 200000 >"$WORK/mr2.out" 2>"$WORK/mr2.err"
        local rc=$?
        [ $rc = 0 ] && cmp -s "$WORK/mr.bo" "$WORK/mr2.out" || { say "  cutap trace: exit $rc"; cat "$WORK/mr2.err" >&2; return 1; }
        grep -Eq "^cutap: process [0-9]+ \(.*t_record\): recording stopped after [0-9,]+ calls: the trace file could not be extended: No space left on device; [0-9,]+ calls not recorded$" \
            "$WORK/mr2.err" || { cat "$WORK/mr2.err" >&2; return 1; }
    done
}

case_rec_ext2_without_fallocate() {
    # A real filesystem without fallocate (ext2 on a loop device): full
    # before the start, and outgrown mid-run; the program as bare, the
    # header says it stopped for lack of space.
    command -v mkfs.ext2 >/dev/null || { say "  no mkfs.ext2: skipped"; return 77; }
    local m=$WORK/e2m img=$WORK/e2.img
    truncate -s 6M "$img" && mkfs.ext2 -q -F "$img" >/dev/null 2>&1 && mkdir -p "$m" \
        && mount -o loop "$img" "$m" 2>/dev/null || { say "  cannot loop-mount ext2 here: skipped"; return 77; }
    SMALL_FS+=("$m")
    trap 'for m in "${SMALL_FS[@]}"; do umount -l "$m"; done' EXIT
    fallocate -l 64k "$m/probe" 2>/dev/null && { say "  this ext2 has fallocate: skipped"; return 77; }
    UNDER="CUTAP_TRACE=$m/p LD_PRELOAD=$LIB" bare_same e2a $T/t_record many 200000 || return 1
    local f; f=$(ls "$m"/p/*.cutap) || return 1
    read -r ver flags err reason lost <<<"$(hdr_loss "$f")"
    [ $((flags & 4)) = 4 ] && [ "$err" = 28 ] && [ "$reason" = 1 ] && [ "$lost" -gt 0 ] \
        || { say "  header: flags $flags errno $err reason $reason lost $lost"; return 1; }
    rm -rf "$m/p"; fill_fs "$m"
    UNDER="CUTAP_TRACE=$m/q LD_PRELOAD=$LIB" bare_same e2b $T/t_record many 3000 || return 1
    UNDER="CUTAP_COUNT=$m/r LD_PRELOAD=$LIB" bare_same e2c $T/t_record many 3000
}

case_rec_warnings_not_on_program_fd2() {
    # A program that put a data file on fd 2 and then hits a recording
    # failure: its data file is unchanged (warnings go to cutap's own
    # channel: cutap trace prints them on its stderr).
    local m=$WORK/wfs; small_fs "$m" 4m || return $?
    printf 'precious\n' >"$WORK/data"
    "$CUTAP" trace -o "$m/t" -- sh -c "exec 2>>$WORK/data; $T/t_record many 200000 >/dev/null" 2>"$WORK/wf.err" || return 1
    [ "$(cat "$WORK/data")" = precious ] || { say "  data file changed:"; cat "$WORK/data" >&2; return 1; }
    grep -q 'warning: recording stopped: cannot extend the trace file: No space left on device' "$WORK/wf.err" \
        || { cat "$WORK/wf.err" >&2; return 1; }
    # Plain CUTAP_TRACE on a full disk: no registry can be made; silent.
    rm -rf "$m"/*; fill_fs "$m"
    CUTAP_TRACE=$m/p LD_PRELOAD=$LIB sh -c "exec 2>>$WORK/data; $T/t_record many 2000 >/dev/null" || return 1
    [ "$(cat "$WORK/data")" = precious ] || { say "  data file changed (plain CUTAP_TRACE):"; cat "$WORK/data" >&2; return 1; }
}

case_rec_odd_output_dirs() {
    # CUTAP_TRACE at /proc, at a regular file, in another user's
    # directory: the program runs as bare (output, status, stderr).
    printf 'x\n' >"$WORK/regular"
    mkdir -p "$WORK/other" && chown 65534:65534 "$WORK/other" && chmod 0755 "$WORK/other"
    local d
    for d in /proc/self/cutap-x /proc/cutap-x "$WORK/regular" "$WORK/regular/sub" "$WORK/other/t"; do
        UNDER="CUTAP_TRACE=$d LD_PRELOAD=$LIB" bare_same od $T/t_record many 300 || { say "  CUTAP_TRACE=$d"; return 1; }
        UNDER="CUTAP_COUNT=$d LD_PRELOAD=$LIB" bare_same od $T/t_record many 300 || { say "  CUTAP_COUNT=$d"; return 1; }
    done
    [ "$(cat "$WORK/regular")" = x ] || return 1
}

case_rec_trace_dir_checks() {
    # cutap trace refuses, before the command runs, an -o that is not a
    # directory of ours that only we can write (and whose parent nobody
    # else owns): /proc, a regular file, a symlink, another user's
    # directory or a directory in one, a directory others may write.
    printf 'x\n' >"$WORK/reg"
    mkdir -p "$WORK/real" "$WORK/theirs" "$WORK/open" "$WORK/their_parent"
    ln -sfn "$WORK/real" "$WORK/link"
    chown 65534 "$WORK/theirs" "$WORK/their_parent"; chmod 0777 "$WORK/open"
    local d rc
    for d in /proc/cutap-x "$WORK/reg" "$WORK/link" "$WORK/theirs" "$WORK/their_parent/t" "$WORK/open"; do
        rm -f "$WORK/ran"
        "$CUTAP" trace -o "$d" -- touch "$WORK/ran" 2>"$WORK/dc.err"; rc=$?
        [ $rc = 1 ] && [ ! -e "$WORK/ran" ] || { say "  -o $d: exit $rc, command run: $([ -e "$WORK/ran" ] && echo yes)"; return 1; }
        grep -q "^cutap: \(refusing -o\|cannot create\) $d" "$WORK/dc.err" || { cat "$WORK/dc.err" >&2; return 1; }
    done
    [ "$(cat "$WORK/reg")" = x ] && [ -z "$(ls -A "$WORK/real")" ] || return 1
    # Writable by a group other than ours: refused; by our own group
    # (umask 002 with user private groups): accepted.
    mkdir -p "$WORK/grp" "$WORK/owngrp"; chgrp 65534 "$WORK/grp"; chmod 0770 "$WORK/grp" "$WORK/owngrp"
    "$CUTAP" trace -o "$WORK/grp" -- true 2>"$WORK/dc.err"; [ $? = 1 ] && grep -q 'writable by other users' "$WORK/dc.err" || return 1
    "$CUTAP" trace -o "$WORK/owngrp" -- true 2>"$WORK/dc.err" || { cat "$WORK/dc.err" >&2; return 1; }
    # Ours: directory 0700, files 0600.
    "$CUTAP" trace -o "$WORK/mine" -- $T/t_record many 3 >/dev/null 2>&1 || return 1
    [ "$(stat -c %a "$WORK/mine")" = 700 ] && [ "$(stat -c %a "$WORK/mine"/*.cutap "$WORK/mine/.cutap-procs" | sort -u)" = 600 ] \
        || { stat -c '%a %n' "$WORK/mine" "$WORK/mine"/* "$WORK/mine"/.cutap-procs >&2; return 1; }
}

case_rec_not_traced_named() {
    # Processes started but never traced, named with the reason: a static
    # child, a child exec'd with an empty environment, a setuid child; a
    # static command itself. The traced ones are not listed.
    [ -x $T/t_static ] || { say "  no static libc: skipped"; return 77; }
    cp /bin/true "$WORK/suid_true" && chown 65534 "$WORK/suid_true" && chmod 4755 "$WORK/suid_true" || return 1
    "$CUTAP" trace -o "$WORK/nt" -- sh -c "$T/t_static a; env -i LD_LIBRARY_PATH=$LD_LIBRARY_PATH $T/t_record many 1 >/dev/null; $WORK/suid_true; $T/t_record many 2" \
        >"$WORK/nt.out" 2>"$WORK/nt.err" || { cat "$WORK/nt.err" >&2; return 1; }
    local line; line=$(grep '^cutap: .* not traced: ' "$WORK/nt.err")
    [[ $line == "cutap: 3 processes not traced: "* ]] \
        && [[ $line == *"$T/t_static (pid "[0-9]*"): statically linked"* ]] \
        && [[ $line == *"$T/t_record (pid "[0-9]*"): its environment has no LD_PRELOAD of libcutap"* ]] \
        && [[ $line == *"$WORK/suid_true (pid "[0-9]*"): setuid"* ]] || { cat "$WORK/nt.err" >&2; return 1; }
    grep -q '^cutap: 1 process traced into ' "$WORK/nt.err" || { cat "$WORK/nt.err" >&2; return 1; }
    "$CUTAP" trace -o "$WORK/nt2" -- $T/t_static b >/dev/null 2>"$WORK/nt2.err" || return 1
    grep -q "^cutap: 1 process not traced: $T/t_static (pid [0-9]*): statically linked$" "$WORK/nt2.err" \
        || { cat "$WORK/nt2.err" >&2; return 1; }
    # posix_spawn (Python's os.posix_spawn): the static child named, the
    # traced one not; an exec that failed (no such program) is no process.
    if command -v python3 >/dev/null; then
        "$CUTAP" trace -o "$WORK/nt4" -- python3 -c "
import os
for p in ('$T/t_static', '$T/t_record'):
    os.waitpid(os.posix_spawn(p, [p, 'many', '1'], os.environ), 0)
os.system('/nonexistent/prog 2>/dev/null')" >/dev/null 2>"$WORK/nt4.err" || { cat "$WORK/nt4.err" >&2; return 1; }
        grep -q "^cutap: 1 process not traced: $T/t_static (pid [0-9]*): statically linked$" "$WORK/nt4.err" \
            && grep -q '^cutap: 1 process traced into ' "$WORK/nt4.err" || { cat "$WORK/nt4.err" >&2; return 1; }
    fi
    # The normal case says nothing of it.
    "$CUTAP" trace -o "$WORK/nt3" -- sh -c "$T/t_record many 2; true" >/dev/null 2>"$WORK/nt3.err" || return 1
    [ "$(wc -l <"$WORK/nt3.err")" = 1 ] && grep -q '^cutap: 1 process traced into .*: 2 calls, ' "$WORK/nt3.err" \
        || { cat "$WORK/nt3.err" >&2; return 1; }
}

case_rec_many_execs_registry() {
    # 1,500 short programs without CUDA (a shell loop, as in a build) then
    # a static one: the registry (1,023 slots) does not fill: programs
    # that started with cutap free their exec notes and claim nothing
    # more, so the static program is still named and nothing is "not
    # listed" (was full after ~500 programs).
    [ -x $T/t_static ] || { say "  no static libc: skipped"; return 77; }
    "$CUTAP" trace -o "$WORK/mx" -- sh -c "i=0; while [ \$i -lt 1500 ]; do /bin/true; i=\$((i + 1)); done; $T/t_static a; $T/t_record many 2" \
        >/dev/null 2>"$WORK/mx.err" || { cat "$WORK/mx.err" >&2; return 1; }
    grep -q "^cutap: 1 process not traced: $T/t_static (pid [0-9]*): statically linked$" "$WORK/mx.err" \
        && ! grep -q 'not listed' "$WORK/mx.err" && grep -q '^cutap: 1 process traced into .*: 2 calls, ' "$WORK/mx.err" \
        || { cat "$WORK/mx.err" >&2; return 1; }
}

case_rec_stat_output_file() {
    # cutap stat -o FILE: never through a symlink, never over an existing
    # file without --force, 0600, and left as it was (a new one not made)
    # when the command cannot run.
    printf 'target\n' >"$WORK/so_target"; ln -sfn "$WORK/so_target" "$WORK/so_link"
    "$CUTAP" stat -o "$WORK/so_link" -- $T/t_record many 3 >/dev/null 2>"$WORK/so.err"; [ $? = 1 ] || return 1
    "$CUTAP" stat --force -o "$WORK/so_link" -- $T/t_record many 3 >/dev/null 2>>"$WORK/so.err"; [ $? = 1 ] || return 1
    [ "$(cat "$WORK/so_target")" = target ] || { say "  symlink target changed"; return 1; }
    printf 'old\n' >"$WORK/so_old"
    "$CUTAP" stat -o "$WORK/so_old" -- $T/t_record many 3 >/dev/null 2>>"$WORK/so.err"; [ $? = 1 ] || return 1
    grep -q 'exists (--force replaces it)' "$WORK/so.err" && [ "$(cat "$WORK/so_old")" = old ] || { cat "$WORK/so.err" >&2; return 1; }
    "$CUTAP" stat --force -o "$WORK/so_old" -- "$WORK/no-such-program" 2>/dev/null; [ $? = 127 ] || return 1
    [ "$(cat "$WORK/so_old")" = old ] || { say "  truncated although the command did not run"; return 1; }
    "$CUTAP" stat -o "$WORK/so_new" -- "$WORK/no-such-program" 2>/dev/null; [ $? = 127 ] && [ ! -e "$WORK/so_new" ] || return 1
    "$CUTAP" stat --force -o "$WORK/so_old" -- $T/t_record many 3 >/dev/null 2>&1 || return 1
    grep -q cuCtxGetCurrent "$WORK/so_old" && ! grep -q old "$WORK/so_old" || return 1
    "$CUTAP" stat -o "$WORK/so_new" -- $T/t_record many 3 >/dev/null 2>&1 || return 1
    [ "$(stat -c %a "$WORK/so_new")" = 600 ] && grep -q cuCtxGetCurrent "$WORK/so_new" || return 1
    # --force on a FIFO (what was opened is checked: the open neither
    # blocks nor writes into it)
    rm -f "$WORK/so_fifo"; mkfifo "$WORK/so_fifo" || return 1
    timeout 10 "$CUTAP" stat --force -o "$WORK/so_fifo" -- $T/t_record many 3 >/dev/null 2>"$WORK/so.err"
    [ $? = 1 ] && grep -q 'not a regular file' "$WORK/so.err" || { say "  --force onto a FIFO:"; cat "$WORK/so.err" >&2; return 1; }
}

case_cli_trace_command_not_found() {
    # cutap trace of a command that cannot run: its message and status 127,
    # no summary, no trace directory left behind.
    rm -rf "$WORK/cnf"
    "$CUTAP" trace -o "$WORK/cnf" -- "$WORK/no-such-program" >/dev/null 2>"$WORK/cnf.err"; [ $? = 127 ] || return 1
    [ "$(cat "$WORK/cnf.err")" = "cutap: cannot run $WORK/no-such-program: No such file or directory" ] \
        || { say "  stderr:"; cat "$WORK/cnf.err" >&2; return 1; }
    [ ! -e "$WORK/cnf" ] || { say "  $WORK/cnf left behind"; return 1; }
}

# churn_check NAME DIR: every thread t_thread_churn named (TID lines in
# $WORK/NAME.out) has exactly its calls in DIR, and no other thread any.
churn_check() {
    sed -n 's/^TID \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$WORK/$1.out" | sort >"$WORK/$1.want"
    "$CUTAP" report --by thread --format csv "$2" 2>/dev/null | awk -F, 'NR > 1 { print $15, $3 }' | sort >"$WORK/$1.got"
    [ -s "$WORK/$1.want" ] && diff "$WORK/$1.want" "$WORK/$1.got" >"$WORK/$1.diff" \
        || { say "  $1: calls per thread, made (<) and recorded (>):"; head -5 "$WORK/$1.diff" >&2; return 1; }
}
case_rec_thread_churn() {
    # 2000 short-lived threads of one call each (one after another, and 20
    # waves of 100 alive at once): every call recorded once, under its
    # thread; the trace of the 2000 in sequence stays small (an exited
    # thread's chunk passes to the next, marked by a THREAD meta record:
    # it was 512 MiB), counting mode too. A call from a key destructor run
    # after cutap's is recorded (a fresh chunk), not lost.
    local mode args kib
    for mode in TRACE COUNT; do
        for args in "seq 2000" "waves 20 100" "seq 200 dtor" "waves 4 50 dtor"; do
            local n=churn_${mode}_${args// /_}
            rm -rf "$WORK/$n"
            env CUTAP_$mode="$WORK/$n" LD_PRELOAD=$LIB $T/t_thread_churn $args >"$WORK/$n.out" 2>/dev/null \
                || { say "  $mode $args failed"; return 1; }
            churn_check "$n" "$WORK/$n" || return 1
            kib=$(du -sk --apparent-size "$WORK/$n" | cut -f1)
            if [ "$args" = "seq 2000" ] || [ $mode = COUNT ]; then
                [ "$kib" -le 8192 ] || { say "  $mode $args: $kib KiB of trace (at most 8 MiB)"; return 1; }
            fi
        done
    done
}

case_rec_count_fork() {
    # Counting mode across fork: the child's counters (its own table and
    # entries) in its own file, none of the parent's calls in it.
    rm -rf "$WORK/cf"
    CUTAP_COUNT=$WORK/cf LD_PRELOAD=$LIB $T/t_fork >"$WORK/cf.out" || return 1
    local child parent
    parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$WORK/cf.out"); child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$WORK/cf.out")
    "$CUTAP" report --by process --format csv "$WORK/cf" 2>/dev/null | awk -F, 'NR > 1 { print $2, $3, $NF }' | sort >"$WORK/cf.got"
    printf '%s\n' "cuDriverGetVersion 1 $parent" "cuInit 1 $parent" "cuMemAlloc_v2 3 $child" | sort | diff - "$WORK/cf.got" >&2
}

case_rec_prefault_helper() {
    # Trace mode populates the pages of the next chunks on a helper thread
    # (src/record/recorder.c, "Page population off the calling thread"):
    # a process past its first chunk has exactly one thread named
    # cutap-pages, with SIGINT, SIGTERM, SIGUSR1, SIGCHLD and SIGALRM
    # blocked (no signal meant for the program is delivered to it); a
    # process of a handful of calls has none (its file stays one chunk);
    # CUTAP_PREFAULT=0 makes none; every call is recorded in each case.
    local n pf want pid i names blk
    for n in 20000:1:1 5:1:0 20000:0:0; do
        want=${n##*:}; pf=${n#*:}; pf=${pf%:*}; n=${n%%:*}
        rm -rf "$WORK/pf" "$WORK/pf.out"
        CUTAP_PREFAULT=$pf CUTAP_TRACE=$WORK/pf LD_PRELOAD=$LIB $T/t_record wait $n >"$WORK/pf.out" &
        pid=$!
        for i in $(seq 100); do grep -q ready "$WORK/pf.out" 2>/dev/null && break; sleep 0.05; done
        sleep 0.2   # the helper names itself as it starts
        names=$(cat /proc/$pid/task/*/comm 2>/dev/null | grep -c '^cutap-pages$')
        blk=$(for t in /proc/$pid/task/*; do grep -qx cutap-pages $t/comm && sed -n 's/^SigBlk:[[:space:]]*//p' $t/status; done)
        kill -TERM $pid; wait $pid 2>/dev/null
        [ "$names" = "$want" ] || { say "  $n calls, CUTAP_PREFAULT=$pf: $names helper threads, want $want"; return 1; }
        if [ "$want" = 1 ]; then
            # bits of signals 2, 15, 10, 17, 14 (bit k-1 for signal k)
            (( (0x$blk >> 1 & 1) && (0x$blk >> 14 & 1) && (0x$blk >> 9 & 1) && (0x$blk >> 16 & 1) && (0x$blk >> 13 & 1) )) \
                || { say "  helper's blocked signals: $blk"; return 1; }
        fi
        "$CUTAP" report --format csv "$WORK/pf" 2>/dev/null | grep -q "^driver,cuCtxGetCurrent,$n,0," \
            || { say "  $n calls, CUTAP_PREFAULT=$pf: not all recorded"; "$CUTAP" report "$WORK/pf" >&2; return 1; }
    done
}

case_rec_small_process_small_file() {
    # A process with a handful of calls: its trace is one 4 KiB header and
    # one 256 KiB chunk (was 1 MiB), and reads back whole.
    rm -rf "$WORK/sp"
    CUTAP_TRACE=$WORK/sp LD_PRELOAD=$LIB $T/t_record many 5 >/dev/null || return 1
    [ "$(stat -c %s "$WORK"/sp/*.cutap)" = $((4096 + 262144)) ] || { stat -c '%s %n' "$WORK"/sp/*.cutap >&2; return 1; }
    "$CUTAP" report --format csv "$WORK/sp" | grep -q '^driver,cuCtxGetCurrent,5,0,'
}

# --- reader: format version 3, damaged and hostile files, output safety ------
# (issue #11, parts 4-6, reader side). $T/mk_trace crafts the files
# (tests/mk_trace.c): the recorder does not write all of version 3 yet.
MK=$T/mk_trace

case_reader_v3_threads_and_loss() {
    # A version 3 trace: a chunk passed to a second thread by a THREAD meta
    # (that thread's run 1, earlier in the file than its run 0): its calls
    # are its thread's, in run order (the child, starting at the same time
    # as its parent, after it and indented); the loss fields give one
    # warning per command on stderr.
    [ -x $MK ] || return 77
    local d=$WORK/v3; rm -rf "$d"; mkdir -p "$d"
    $MK v3 "$d" || return 1
    "$CUTAP" dump "$d" >"$WORK/v3.dump" 2>"$WORK/v3.err" || { say "  dump failed"; cat "$WORK/v3.err" >&2; return 1; }
    local want='[1234/100] cuInit(
[1234/200] cuCtxSynchronize(
[1234/200]   cuMemAlloc_v2(
[1234/200] cuCtxSynchronize('
    local got; got=$(sed 's/^[0-9.]* //; s/(.*/(/' "$WORK/v3.dump")
    [ "$got" = "$want" ] || { say "  dump:"; cat "$WORK/v3.dump" >&2; return 1; }
    local w='cutap: warning: process 1234 (host): recording stopped early (No space left on device): 95000 calls not recorded, 3 kernel names not recorded'
    one_warning() { [ "$(grep -c '^cutap: warning' "$1")" = 1 ] && grep -Fxq "$2" "$1"; }
    one_warning "$WORK/v3.err" "$w" || { say "  dump stderr:"; cat "$WORK/v3.err" >&2; return 1; }
    local c
    for c in "report" "report --tree" "report --format json" "export --format jsonl -o $WORK/v3.jsonl" \
             "export --format perfetto -o $WORK/v3.json"; do
        "$CUTAP" $c "$d" >/dev/null 2>"$WORK/v3.err" || { say "  $c failed"; cat "$WORK/v3.err" >&2; return 1; }
        one_warning "$WORK/v3.err" "$w" || { say "  $c stderr:"; cat "$WORK/v3.err" >&2; return 1; }
    done
    # the per-process places of the exports carry the loss
    grep -q '"type":"process".*"pid":1234.*"stopped":true.*"stop_reason":"space".*"stop_errno":28.*"lost_calls":95000.*"lost_names":3' \
        "$WORK/v3.jsonl" || { say "  no loss line in JSON lines"; grep -v '"call"' "$WORK/v3.jsonl" >&2; return 1; }
    grep -q '"process_labels".*95000 calls not recorded' "$WORK/v3.json" \
        || { say "  no loss label in the Perfetto JSON"; return 1; }
    "$CUTAP" report --by process --format json "$d" 2>/dev/null | grep -q '"lost_calls":95000' \
        || { say "  report --by process --format json has no lost_calls"; return 1; }
    if "$CUTAP" export --format sqlite -o "$WORK/v3.db" "$d" 2>/dev/null; then
        command -v sqlite3 >/dev/null || return 0
        local row; row=$(sqlite3 "$WORK/v3.db" 'SELECT pid, stopped, stop_reason, stop_errno, lost_calls, lost_names FROM processes')
        [ "$row" = "1234|1|space|28|95000|3" ] || { say "  SQLite processes row: $row"; return 1; }
    fi
}

case_reader_v3_counter_entries() {
    # Version 3 counting mode: COUNTER_ENTRIES chunks, entries of any
    # thread; one without its magic is not counted. lost_calls alone warns.
    [ -x $MK ] || return 77
    local d=$WORK/v3c; rm -rf "$d"; mkdir -p "$d"
    $MK v3counts "$d" || return 1
    "$CUTAP" report --by thread --format csv "$d" >"$WORK/v3c.csv" 2>"$WORK/v3c.err" || return 1
    local want='layer,name,calls,errors,total_ns,avg_ns,min_ns,max_ns,med_ns,time_pct,unfinished,timed,host,pid,tid
driver,cuMemAlloc_v2,10,0,1000,100,100,100,,66.67,0,10,host,4321,10
driver,cuInit,1,0,500,500,500,500,,33.33,0,1,host,4321,10
driver,cuMemAlloc_v2,40,2,4000,100,100,100,,100.00,0,40,host,4321,11'
    [ "$(cat "$WORK/v3c.csv")" = "$want" ] || { say "  report:"; cat "$WORK/v3c.csv" >&2; return 1; }
    grep -Fxq 'cutap: warning: process 4321 (host): 7 calls not recorded' "$WORK/v3c.err" \
        || { say "  stderr:"; cat "$WORK/v3c.err" >&2; return 1; }
}

case_reader_disk_flags_not_internal() {
    # A call record's flags byte with bits the format does not define
    # (0x80 is the reader's own range flag in memory): read as a call, no
    # crash in any command (was SIGSEGV in report --tree, dump, export).
    [ -x $MK ] || return 77
    # (under AddressSanitizer too, where built: the plain command may read
    # a stray address that happens to be mapped)
    local d=$WORK/fl c x; rm -rf "$d"; mkdir -p "$d"
    $MK flags "$d" || return 1
    for x in "$CUTAP" "$B/asan/cutap"; do
        [ -x "$x" ] || continue
        for c in "dump" "report" "report --tree" "report --by thread --format json" \
                 "export --format jsonl -o $WORK/fl.jsonl" "export --format perfetto -o $WORK/fl.json"; do
            rm -f "$WORK/fl.jsonl" "$WORK/fl.json"
            SAN_LEAKS=0 sanitized "$x" $c "$d" >/dev/null 2>"$WORK/fl.err" \
                || { say "  $x $c: exit $?"; head -20 "$WORK/fl.err" >&2; return 1; }
        done
    done
    [ "$("$CUTAP" dump "$d" | grep -c cuInit)" = 58 ] || { "$CUTAP" dump "$d" >&2; return 1; }
}

# Max RSS (KiB) of a command, its output discarded; "" without GNU time.
max_rss() { /usr/bin/time -f '%M' -o "$WORK/rss" "$@" >/dev/null 2>&1; local rc=$?; cat "$WORK/rss" 2>/dev/null | tail -1; return $rc; }

case_reader_huge_ids_bounded() {
    # 500 crafted 12 KiB files naming ids near 2^20 and 2^32 (and a
    # counter chunk whose first id is near 2^32): memory follows what the
    # files hold, not the id numbers (was 2 GB for report and dump).
    [ -x $MK ] && [ -x /usr/bin/time ] || return 77
    local d=$WORK/huge c rss; rm -rf "$d"; mkdir -p "$d"
    $MK hugeids "$d" 500 || return 1
    for c in dump report "report --tree" "export --format jsonl -o $WORK/huge.jsonl"; do
        rm -f "$WORK/huge.jsonl"
        rss=$(max_rss "$CUTAP" $c "$d") || { say "  $c failed"; return 1; }
        say "  $c: max RSS $rss KiB"
        [ "$rss" -lt 49152 ] || { say "  $c: max RSS $rss KiB, bound 48 MiB"; return 1; }
    done
    "$CUTAP" report --format csv "$d" | grep -q '^driver,id#4294967295,500,' || { say "  unnamed id not reported"; return 1; }
}

case_reader_sparse_file_bounded() {
    # A 64 GiB sparse trace file (a chunk at each end, holes between):
    # the holes are skipped, not read (was 84 s and 20 GB).
    [ -x $MK ] && [ -x /usr/bin/time ] || return 77
    local f=$WORK/sparse.cutap c rss
    $MK sparse "$f" || return 1
    [ "$(stat -c %s "$f")" = 68719476736 ] || return 1
    [ "$(du -k "$f" | cut -f1)" -lt 1024 ] || { say "  this file system does not keep holes"; rm -f "$f"; return 77; }
    for c in dump report; do
        rss=$(max_rss "$CUTAP" $c "$f") || { say "  $c failed"; return 1; }
        say "  $c: max RSS $rss KiB"
        [ "$rss" -lt 204800 ] || { say "  $c: max RSS $rss KiB, bound 200 MiB"; rm -f "$f"; return 1; }
    done
    [ "$("$CUTAP" dump "$f" | grep -c cuInit)" = 2 ] || { say "  both chunks' calls expected"; return 1; }
    rm -f "$f"
}

# No byte of a text output may start a terminal escape: control characters
# but newline, DEL, and bytes that are not UTF-8 (or are C1 controls) fail.
text_is_safe() {   # text_is_safe FILE
    python3 - "$1" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
bad = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", b)
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8 at byte %d" % e.start)
c1 = re.search("[\x80-\x9f]", t)
if bad or c1:
    sys.exit("raw control character at %d" % (bad or c1).start())
PY
}

case_reader_hostile_strings_escaped() {
    # Strings from the traced process (host, exe, cmdline, thread name,
    # call and kernel names, captured strings, NVTX messages) with terminal
    # escapes and bytes that are not UTF-8: text output shows them as
    # \xNN, CSV quotes and escapes them, JSON stays valid and keeps them.
    [ -x $MK ] || return 77
    local d=$WORK/ho c i=0; rm -rf "$d"; mkdir -p "$d"
    $MK hostile "$d" || return 1
    for c in "dump" "report" "report --by thread" "report --by process" "report --tree" \
             "report --format csv" "report --by thread --format csv" "report --tree --format csv"; do
        i=$((i + 1))
        "$CUTAP" $c "$d" >"$WORK/ho.$i" 2>&1 || { say "  $c failed"; return 1; }
        text_is_safe "$WORK/ho.$i" || { say "  $c:"; cat -v "$WORK/ho.$i" >&2; return 1; }
    done
    "$CUTAP" report --by thread "$d" | grep -Fq '== thread 66 (\x1b]0;pwned\x07) of process 666 on h\x1b]0;pwned\x07ost ==' \
        || { say "  thread label not escaped as expected"; return 1; }
    "$CUTAP" dump "$d" | grep -Fq 'f=0xabc<kern\x1b[5m\xe2\x82>' || { say "  kernel name"; "$CUTAP" dump "$d" | cat -v >&2; return 1; }
    "$CUTAP" dump "$d" | grep -Fq ' cuInit\x1b[1m\xc3()' || { say "  call name"; return 1; }
    "$CUTAP" report --format csv "$d" | grep -Fq 'driver,"cuInit\x1b[1m\xc3",1,' || { say "  CSV"; return 1; }
    # JSON: valid, and the strings come back as written (bytes that are
    # not UTF-8 as the code points of their values)
    "$CUTAP" export --format jsonl -o "$WORK/ho.jsonl" "$d" 2>/dev/null || return 1
    "$CUTAP" export --format perfetto -o "$WORK/ho.json" "$d" 2>/dev/null || return 1
    "$CUTAP" report --by thread --format json "$d" >"$WORK/ho.rj" 2>/dev/null || return 1
    python3 - "$WORK/ho.jsonl" "$WORK/ho.json" "$WORK/ho.rj" <<'PY' || return 1
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
names = {l["name"] for l in lines if "name" in l}
assert "cuInit\x1b[1m\xc3" in names, names
assert "range\x1b]0;pwned\x07\x80\"q\\" in names, names
assert any(l.get("kernel") == "kern\x1b[5m\u00e2\u0082" for l in lines), lines
p = json.load(open(sys.argv[2], encoding="utf-8"))
assert any(e.get("args", {}).get("name") == "\x1b]0;pwned\x07" for e in p["traceEvents"] if e.get("ph") == "M")
r = json.load(open(sys.argv[3], encoding="utf-8"))
assert r["rows"][0]["host"] == "h\x1b]0;pwned\x07ost", r["rows"][0]
PY
}

case_export_output_safety() {
    # Export outputs: mode 0600; an existing name (a symbolic link too) is
    # not replaced without --force; with --force a symbolic link is
    # replaced by the file, its target left as it was.
    [ -x $MK ] || return 77
    local d=$WORK/os f; rm -rf "$d"; mkdir -p "$d/t"
    $MK v3 "$d/t" || return 1
    for f in jsonl perfetto sqlite; do
        [ $f = sqlite ] && { "$CUTAP" export --format sqlite -o "$d/probe.db" "$d/t" 2>/dev/null || continue; }
        (umask 022; "$CUTAP" export --format $f -o "$d/out.$f" "$d/t" 2>/dev/null) || { say "  export $f failed"; return 1; }
        [ "$(stat -c %a "$d/out.$f")" = 600 ] || { say "  $f: mode $(stat -c %a "$d/out.$f")"; return 1; }
        echo precious >"$d/target.$f"
        ln -s "$d/target.$f" "$d/link.$f"
        "$CUTAP" export --format $f -o "$d/link.$f" "$d/t" 2>"$d/err"; [ $? = 1 ] || { say "  $f: replaced a link without --force"; return 1; }
        grep -q 'exists (use --force' "$d/err" || { cat "$d/err" >&2; return 1; }
        "$CUTAP" export --format $f --force -o "$d/link.$f" "$d/t" 2>/dev/null || { say "  $f --force failed"; return 1; }
        [ ! -L "$d/link.$f" ] && [ -f "$d/link.$f" ] || { say "  $f: the link is still there"; return 1; }
        [ "$(cat "$d/target.$f")" = precious ] || { say "  $f: wrote through the link"; return 1; }
        [ "$(stat -c %a "$d/link.$f")" = 600 ] || { say "  $f --force: mode $(stat -c %a "$d/link.$f")"; return 1; }
        # a dangling link: not created through it either
        ln -s "$d/nowhere.$f" "$d/dangling.$f"
        "$CUTAP" export --format $f -o "$d/dangling.$f" "$d/t" 2>/dev/null; [ $? = 1 ] || return 1
        [ ! -e "$d/nowhere.$f" ] || { say "  $f: created the link's target"; return 1; }
    done
}

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
case_reader_libfuzzer() {
    # The coverage-guided fuzz target (tests/fuzz/fuzz_trace.c: the reader,
    # report in every format and grouping, --tree, dump, exports) for
    # FUZZ_SECONDS (60) from tests/fuzz/corpus, whose inputs (the seeds and
    # every input that once failed) must all pass first. A crash, leak,
    # sanitizer report, timeout (20 s) or use of over 2 GiB fails; the
    # input is kept in $B/fuzz_trace-failure.
    local F=$T/fuzz_trace d=$WORK/lf
    [ -x $F ] || { say "  $F not built (no clang with -fsanitize=fuzzer): skipped"; return 77; }
    rm -rf "$d"; mkdir -p "$d/corpus" "$d/art"
    cp tests/fuzz/corpus/* "$d/corpus/" || return 1
    # (LeakSanitizer usable? asked of the sanitized command: the fuzz
    # target takes every argument as an input)
    local leaks=0; [ -x "$B/asan/cutap" ] && leaks=$(SAN_LEAKS= san_leaks "$B/asan/cutap")
    # every corpus input, alone
    (cd "$d" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $F -detect_leaks=$leaks -timeout=20 \
        -rss_limit_mb=2048 -close_fd_mask=2 "$ROOT"/tests/fuzz/corpus/* >"$d/replay.log" 2>&1) \
        || { say "  a corpus input fails:"; grep -E 'ERROR|SUMMARY|Running|#[0-9] ' "$d/replay.log" | head -30 >&2; return 1; }
    (cd "$d" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $F -detect_leaks=$leaks -timeout=20 \
        -rss_limit_mb=2048 -max_len=65536 -max_total_time=$FUZZ_SECONDS -print_final_stats=1 -close_fd_mask=2 \
        -artifact_prefix="$d/art/" corpus >"$d/fuzz.log" 2>&1)
    local rc=$?
    if [ $rc != 0 ]; then
        say "  fuzz_trace exit $rc:"; grep -E 'ERROR|SUMMARY|#[0-9] |Test unit written' "$d/fuzz.log" | head -30 >&2
        cp "$d"/art/* "$B/" 2>/dev/null && say "  the input is kept in $B/ ($(ls "$d/art" | tr '\n' ' '))"
        return 1
    fi
    grep -E '^#[0-9]+ *DONE' "$d/fuzz.log" | tail -1 >&2
    grep -E 'stat::number_of_executed_units' "$d/fuzz.log" >&2
}

case_reader_median_bounded() {
    # report's median: exact up to 4096 calls of a row, then from a
    # log-linear histogram within 1/256 of the true value (README).
    [ -x $MK ] || return 77
    local d=$WORK/med n want got
    for n in 4096:3047 20001:11000 200001:101000; do
        want=${n#*:}; n=${n%:*}
        rm -rf "$d"; mkdir -p "$d"
        $MK durations "$d" $n || return 1
        got=$("$CUTAP" report --format csv "$d" 2>/dev/null | sed -n 's/^driver,cuCtxSynchronize,'$n',0,[0-9]*,[0-9]*,1000,[0-9]*,\([0-9]*\),.*/\1/p')
        [ -n "$got" ] || { say "  n=$n: no row"; "$CUTAP" report --format csv "$d" >&2; return 1; }
        if [ $n -le 4096 ]; then [ "$got" = "$want" ] || { say "  n=$n: median $got, exact $want"; return 1; }
        else [ $(( (got > want ? got - want : want - got) * 256 )) -le "$want" ] || { say "  n=$n: median $got, true $want"; return 1; }; fi
        say "  $n calls: median $got (true $want)"
    done
}

case_reader_memory_2m_calls() {
    # 2,000,000 recorded calls (a 128 MiB trace): report, --tree, dump and
    # the JSON lines export stay under 48 MiB (the reader streams the
    # calls and drops the file's pages as it goes; report keeps rows, not
    # samples; 22-25 MiB measured). The reader that held every call took
    # 121 MiB, and before that 268-328 MiB.
    [ -x /usr/bin/time ] || return 77
    local d=$WORK/m2 c rss
    rm -rf "$d"
    "$CUTAP" trace -o "$d" -- $T/t_record many 2000000 >/dev/null 2>&1 || return 1
    for c in report "report --tree" dump "export --format jsonl -o $WORK/m2.jsonl"; do
        rm -f "$WORK/m2.jsonl"
        rss=$(max_rss "$CUTAP" $c "$d") || { say "  $c failed"; return 1; }
        say "  $c: max RSS $rss KiB"
        [ "$rss" -lt 49152 ] || { say "  $c: max RSS $rss KiB, bound 48 MiB"; return 1; }
    done
    rm -rf "$d" "$WORK/m2.jsonl"
}

case_reader_memory_flat() {
    # The reader streams the calls (cli/trace_read.c, tr_iter): report,
    # --tree, dump and the JSON lines and Perfetto exports keep no call,
    # so their memory does not grow with the number of calls. 8 threads
    # at once making nested calls (a merge of 8 streams, parents from
    # per-thread stacks): 0.48 M and 4.8 M calls; on the larger, every
    # command under 64 MiB and within 20 MiB of the smaller (the reader
    # that held every call took 286 MiB for report), and the tree's
    # counts exact.
    [ -x /usr/bin/time ] || return 77
    local n c small big
    for n in 20000 200000; do
        rm -rf "$WORK/mf$n"
        "$CUTAP" trace -o "$WORK/mf$n" -- $T/t_record threads 8 $n >"$WORK/mf$n.out" 2>&1 || { cat "$WORK/mf$n.out" >&2; return 1; }
        grep -qx "CALLS $((24 * n))" "$WORK/mf$n.out" || return 1
    done
    "$CUTAP" report --tree --format csv "$WORK/mf200000" >"$WORK/mf.csv" || return 1
    for c in 'cuProfilerStart,driver,cuProfilerStart,0,1600000,' 'cuProfilerStart > cuDriverGetVersion,driver,cuDriverGetVersion,1,1600000,' \
        'cuCtxGetCurrent,driver,cuCtxGetCurrent,0,1600000,'; do
        grep -qF -- "$c" "$WORK/mf.csv" || { say "  no tree row '$c'"; cat "$WORK/mf.csv" >&2; return 1; }
    done
    [ "$(wc -l <"$WORK/mf.csv")" = 4 ] || { cat "$WORK/mf.csv" >&2; return 1; }
    for c in report "report --tree" dump "export --format jsonl -o $WORK/mf.jsonl" "export --format perfetto -o $WORK/mf.json"; do
        rm -f "$WORK/mf.jsonl" "$WORK/mf.json"
        small=$(max_rss "$CUTAP" $c "$WORK/mf20000") || { say "  $c failed"; return 1; }
        rm -f "$WORK/mf.jsonl" "$WORK/mf.json"
        big=$(max_rss "$CUTAP" $c "$WORK/mf200000") || { say "  $c failed"; return 1; }
        say "  $c: max RSS $small KiB (0.48 M calls), $big KiB (4.8 M calls)"
        [ "$big" -lt 65536 ] && [ "$big" -lt $((small + 20480)) ] || { say "  $c: memory grows with the calls"; return 1; }
    done
    rm -rf "$WORK"/mf*
}

case_reader_progress_on_terminal() {
    # Long commands draw a progress line on stderr when it is a terminal
    # (erased at the end), and print nothing of it otherwise.
    command -v python3 >/dev/null || return 77
    local d=$WORK/pg
    rm -rf "$d"
    "$CUTAP" trace -o "$d" -- $T/t_record many 600000 >/dev/null 2>&1 || return 1
    "$CUTAP" dump "$d" 2>"$WORK/pg.err" >/dev/null || return 1
    [ ! -s "$WORK/pg.err" ] || { say "  stderr not a terminal, yet:"; cat -v "$WORK/pg.err" >&2; return 1; }
    python3 - "$CUTAP" "$d" <<'PY' || return 1
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.run([sys.argv[1], "dump", sys.argv[2]], stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
out = b""
while True:
    try:
        b = os.read(m, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
assert p.returncode == 0, p.returncode
assert b"cutap: dump: 262144 of 600000 calls" in out, out[:300]
assert out.endswith(b"\r\x1b[K"), out[-40:]
PY
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
