# Sourced first by every case of tests/cases: the paths of the build, a
# clean environment, the case's own work directory ($WORK) and the helpers
# the cases share. A case is a bash script that exits 0 (pass), 77 (skip:
# a prerequisite is missing) or anything else (fail); what it prints is its
# log. tests/run.sh runs each in a fresh work directory; run alone
# (`bash tests/cases/paths/dlvsym.sh`), a case makes a temporary one.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)  # the case's directory: its expected outputs
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
B=${CUTAP_TEST_BUILD:-$ROOT/build}   # make test passes BUILD
T=$B/tests
LIB=$B/libcutap.so
CUTAP=$B/cutap
TL=$ROOT/tests/lib                   # the python3 checks
export LD_LIBRARY_PATH=$B/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# libduckdb.so for the Parquet export's cases: $CUTAP_DUCKDB_LIB (.ci/run
# sets it), else what .ci/get-duckdb.sh put in .duckdb/
[ -n "${CUTAP_DUCKDB_LIB:-}" ] || [ ! -e "$ROOT/.duckdb/libduckdb.so" ] || export CUTAP_DUCKDB_LIB=$ROOT/.duckdb/libduckdb.so
unset CUTAP_LOG CUTAP_STAT CUTAP_PLUGINS CUTAP_HIDDEN CUTAP_DRIVER CUTAP_DEBUG

# Commands run when the case exits, however it exits, the last one given
# first (unmounting, then removing a temporary work directory): on_exit 'CMD'.
_on_exit=()
on_exit() { _on_exit+=("$1"); }
_run_on_exit() { local i; for ((i = ${#_on_exit[@]} - 1; i >= 0; i--)); do eval "${_on_exit[$i]}"; done; }
trap _run_on_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
if [ -n "${CUTAP_TEST_WORK:-}" ]; then
    WORK=$CUTAP_TEST_WORK
    mkdir -p "$WORK" || exit 1
else
    WORK=$(mktemp -d /tmp/cutap-case.XXXXXX) || exit 1
    on_exit 'rm -rf "$WORK"'
fi

say() { printf '%s\n' "$*" >&2; }

# --- calls made and calls seen ----------------------------------------------
# reg_says DIR PATTERN: a warning of a traced process in DIR's registry
# (the library's channel when it is not started by cutap trace/stat).
reg_says() {
    grep -aq -- "$2" "$1/.cutap-procs" 2>/dev/null || { say "  no '$2' in $1/.cutap-procs"; return 1; }
}
reg_says_count() { grep -ac -- "$2" "$1/.cutap-procs" 2>/dev/null; }   # DIR PATTERN: how many registry lines say it
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
# Run a program bare (must pass), then under the recorder (CUTAP_TRACE)
# twice: on the generated fast paths, and on the callback path
# (CUTAP_NO_FUSED=1: the dispatch and callbacks every client goes
# through). In each, the calls the program says it made (its CALL lines)
# must be the outermost calls of the JSON lines export, each exactly once.
# Leaves $WORK/NAME.jsonl (the fast-path run's export), NAME.out, NAME.err.
traced_equal() {
    local name=$1 mode; shift
    "$@" >"$WORK/$name.bare" 2>"$WORK/$name.bare.err" || { say "  bare run failed:"; tail -5 "$WORK/$name.bare.err" >&2; return 1; }
    for mode in callbacks fast; do
        rm -rf "$WORK/$name.$mode.tr"
        env $([ $mode = callbacks ] && echo CUTAP_NO_FUSED=1) EXPECT_CUTAP=1 CUTAP_TRACE="$WORK/$name.$mode.tr" \
            LD_PRELOAD=$LIB "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" \
            || { say "  run under cutap ($mode) failed:"; tail -5 "$WORK/$name.err" >&2; return 1; }
        called "$WORK/$name.out" >"$WORK/$name.called"
        [ -s "$WORK/$name.called" ] || { say "  the program reported no calls"; return 1; }
        "$CUTAP" export --format jsonl --force -o "$WORK/$name.jsonl" "$WORK/$name.$mode.tr" 2>"$WORK/$name.export.err" \
            || { say "  export ($mode) failed:"; cat "$WORK/$name.export.err" >&2; return 1; }
        python3 "$TL/jsonl_count.py" --names "$WORK/$name.jsonl" type=call depth=0 >"$WORK/$name.seen" || return 1
        same_counts "$WORK/$name.called" "$WORK/$name.seen" || { say "  ($mode)"; return 1; }
    done
}
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
# Fields of a report CSV row: stat_row FILE NAME -> "calls errors total avg min max timed"
stat_row() { awk -F, -v n="$2" '$2 == n { print $3, $4, $5, $6, $7, $8, $12 }' "$1"; }
# jsonl_calls FILE NAME: "result nargs" of each call of NAME in a JSON
# lines export, in order.
jsonl_calls() { python3 "$TL/jsonl_calls.py" "$1" "$2"; }

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
# The recorded calls are exactly the CALL lines, plus the RTCALL lines when
# with_rt is 1. Left out: the copy's call of TOOLS_RUNTIME_CALLBACK_HOOKS#2
# (for its callback words: recorded as a hidden call where cutap's table
# copy has the slot's trampoline, not where the slot is the default mode's
# own, src/resolve/rt_hooks.c; at most one either way), and the
# TOOLS_TLS#2 calls each report brings (rt_copy.h), checked by the cases
# of the runtime modes (srt_tls2).
srt_recorded() {   # srt_recorded NAME with_rt
    { called "$WORK/$1.out"; [ "$2" = 1 ] && sed -n 's/^RTCALL //p' "$WORK/$1.err"; } >"$WORK/$1.called"
    report_names "$WORK/$1" >"$WORK/$1.all" || return 1
    [ "$(grep -c '^TOOLS_RUNTIME_CALLBACK_HOOKS#2$' "$WORK/$1.all")" -le 1 ] || { say "  more than one #2 call"; return 1; }
    grep -v -e '^TOOLS_RUNTIME_CALLBACK_HOOKS#2$' -e '^TOOLS_TLS#2$' "$WORK/$1.all" >"$WORK/$1.seen"
    same_counts "$WORK/$1.called" "$WORK/$1.seen"
}
srt_tls2() { grep -c '^TOOLS_TLS#2$' "$WORK/$1.all"; }   # after srt_recorded NAME
srt_bare() { [ -s "$WORK/srt_bare.out" ] || $T/t_static_rt >"$WORK/srt_bare.out" 2>/dev/null; }
# The program's output is what it is without cutap.
srt_same_output() { srt_bare && cmp -s "$WORK/srt_bare.out" "$WORK/$1.out" || { say "  output changed:"; diff "$WORK/srt_bare.out" "$WORK/$1.out" | head >&2; return 1; }; }

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
# The call tree of t_libs (path,layer,depth,calls; tests/cases/libs/*.tree):
# `libs_tree runtime` when only libcudart is used, `libs_tree all` with cuBLAS.
libs_tree() {
    cat tests/cases/libs/runtime.tree
    [ "$1" = runtime ] || cat tests/cases/libs/cublas.tree
}
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
    python3 "$TL/libs_parents.py" "$d.jsonl" "$want" || return 1
    # the dump, as names indented by depth, in order
    "$CUTAP" dump "$d.tr" | sed 's/^[0-9.]* \[[0-9/]*\] //; s/(.*//' | tr '\n' '/' >"$d.dump" || return 1
    grep -q '^cudaMalloc/  cuGetProcAddress_v2/' "$d.dump" && grep -q '/  cuMemAlloc_v2/cudaMalloc/cudaMemcpy/  cuMemcpyHtoD_v2/' "$d.dump" \
        || { say "  dump: cudaMalloc's nested calls not indented under it:"; head -c 300 "$d.dump" >&2; return 1; }
    case $want in *cublasSgemm_v2*)
        grep -q '/cublasSgemm_v2/  cublasLtMatmul/    cuLaunchKernel/cublasGemmEx/' "$d.dump" \
            || { say "  dump: cublasSgemm_v2 > cublasLtMatmul > cuLaunchKernel not indented so"; return 1; }
    esac
}

# --- NVTX: cutap as the NVTX injection library (issue #5) ------------------
# t_nvtx (tests/t_nvtx.c) annotates driver calls with NVTX 3 ranges and
# marks; it is built only where the nvtx3 headers are (else: skipped).
# nvtx_names FILE: a dump reduced to indentation and names ("range" and
# "mark" lines keep their message and notes, calls lose their arguments).
nvtx_names() {
    sed -E 's/^[0-9.]+ \[[0-9/]+\] //; /^ *(range|mark) /{s/ <[^>]*>//;b}; s/\(.*$//' "$1"
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

# --- older CUDA majors (issue #11) ------------------------------------------
# A layer's library of another major arriving late (tests/t_old_late.c,
# tests/lib_cublas_min.c). no_cache CMD...: CMD in a mount namespace where
# the loader's cache is empty, so that no libcublas.so.13 of the system
# (the toolkit's) can be found: 77 where that cannot be made.
no_cache() { unshare -m sh -c 'mount --bind /dev/null /etc/ld.so.cache && exec "$0" "$@"' "$@"; }
no_cache_ok() {
    no_cache true 2>/dev/null || { say "  cannot make a mount namespace here (needs root): skipped"; return 77; }
}
# late_trace NAME ARGS...: t_old_late ARGS traced into $WORK/NAME.tr with
# the loader cache hidden; output in $WORK/NAME.out.
late_trace() {
    local d=$WORK/$1; shift
    rm -rf "$d.tr"
    no_cache "$CUTAP" trace -o "$d.tr" -- $T/t_old_late "$@" >"$d.out" 2>"$d.err" \
        || { say "  cutap trace: status $?"; tail -5 "$d.err" >&2; return 1; }
}

# --- issue #11: full disks, losses said, output safety (recorder) -----------
# A tmpfs of size $2 at $1, unmounted when the case ends; 77 (skip) where
# mounting is refused (not root, no tmpfs).
small_fs() {
    mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" 2>/dev/null \
        || { say "  cannot mount a tmpfs here (needs root): skipped"; return 77; }
    on_exit "umount -l '$1'"
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
# Header fields of a trace file: version flags stop_errno stop_reason lost_calls
hdr_loss() { python3 "$TL/hdr_loss.py" "$1"; }

# --- the reader ----------------------------------------------------------------
# $T/mk_trace crafts trace files (tests/mk_trace.c) the recorder does not write.
MK=$T/mk_trace
# Max RSS (KiB) of a command, its output discarded; "" without GNU time.
max_rss() { /usr/bin/time -f '%M' -o "$WORK/rss" "$@" >/dev/null 2>&1; local rc=$?; cat "$WORK/rss" 2>/dev/null | tail -1; return $rc; }

# The ioctl layer's fake NVIDIA kernel (tests/fake/fake_nvkernel.c): a
# device directory with nvidiactl, nvidia0 and nvidia-uvm (plain files)
# that cutap (CUTAP_NV_DEVDIR) and the fake libcuda (FAKE_NV_DEVDIR) use,
# the fake driver preloaded after libcutap, its log of every request it
# served in $WORK/nvk.log. nvk_run NAME ARGS...: t_ioctl ARGS bare
# (NAME.bare) and under cutap trace into $WORK/NAME (NAME.out, NAME.err,
# NAME.log: the fake's log of the traced run).
nvk_env() {
    NVDEV=$WORK/dev
    mkdir -p "$NVDEV" && touch "$NVDEV/nvidiactl" "$NVDEV/nvidia0" "$NVDEV/nvidia-uvm"
    export CUTAP_NV_DEVDIR=$NVDEV FAKE_NV_DEVDIR=$NVDEV
    NVK=$B/fake/libfakenvkernel.so
}
nvk_run() {
    local n=$1; shift
    rm -rf "$WORK/$n" "$WORK/$n.log"
    LD_PRELOAD=$NVK "$T/t_ioctl" "$@" >"$WORK/$n.bare" 2>&1 || { say "  bare t_ioctl $* failed"; return 1; }
    FAKE_NVKERNEL_LOG=$WORK/$n.log LD_PRELOAD=$NVK "$CUTAP" trace -o "$WORK/$n" -- "$T/t_ioctl" "$@" \
        >"$WORK/$n.out" 2>"$WORK/$n.err" || { say "  traced t_ioctl $* failed"; cat "$WORK/$n.err" >&2; return 1; }
    diff "$WORK/$n.bare" "$WORK/$n.out" >&2 || { say "  output changed under cutap"; return 1; }
}

# --- trace --gpu (issue #31): GPU work the fake libcupti's activity API sees --
# $T/t_gpu ROUNDS THREADS [PAUSE_MS] (tests/t_gpu.c) makes, per round and
# thread, 10 kernels (scale_f32 2, add_one 1, gnodea/b/c 2 each, rt_axpy 1),
# 8 copies (HtoD 3, DtoH 2, DtoD, HtoH, PtoP) and 5 memsets, by 19 driver
# and 5 runtime calls that CUPTI makes API records of: 24 launching calls.
# gpu_run NAME ARGS...: t_gpu ARGS under cutap trace --gpu into $WORK/NAME
# (NAME.out, NAME.err; the status is the command's); the environment of
# the call site passes through (FAKE_CUPTI_*, CUTAP_GPU_FLUSH_MS).
gpu_run() {
    local n=$1; shift
    rm -rf "${WORK:?}/$n"
    "$CUTAP" trace --gpu -o "$WORK/$n" -- "$T/t_gpu" "$@" >"$WORK/$n.out" 2>"$WORK/$n.err"
}
# gpu_sum NAME: $WORK/NAME's GPU activity as tests/lib/gpu_summary.py reads
# it, into NAME.sum; gpu_val NAME KEY...: a value of it ("by cudaMemset").
gpu_sum() { python3 "$TL/gpu_summary.py" "$WORK/$1" >"$WORK/$1.sum" || { say "  gpu_summary.py $1 failed"; return 1; }; }
gpu_val() { local n=$1; shift; awk -v k="$*" '{ v = $NF; $NF = ""; sub(/ $/, ""); if ($0 == k) { print v; f = 1 } } END { if (!f) print 0 }' "$WORK/$n.sum"; }
# gpu_is NAME KEY... WANT: the value is WANT, or says what it is.
gpu_is() {
    local n=$1 want=${*: -1} got; set -- "${@:2:$#-2}"
    got=$(gpu_val "$n" "$@")
    [ "$got" = "$want" ] || { say "  $n: $* is $got, want $want"; return 1; }
}
# gpu_expect N: gpu_check.py's --expect for N rounds x threads, everything
gpu_expect() { echo "scale_f32=$((2 * $1)) add_one=$1 gnodea=$((2 * $1)) gnodeb=$((2 * $1)) gnodec=$((2 * $1)) rt_axpy=$1 memcpy=$((8 * $1)) memset=$((5 * $1))"; }
# gpu_bare NAME ARGS...: t_gpu ARGS without cutap (must pass), into NAME.bare
gpu_bare() { local n=$1; shift; "$T/t_gpu" "$@" >"$WORK/$n.bare" 2>/dev/null || { say "  bare t_gpu $* failed"; return 1; }; }
gpu_same_output() { cmp -s "$WORK/$1.bare" "$WORK/$1.out" || { say "  $1: output changed:"; diff "$WORK/$1.bare" "$WORK/$1.out" | head >&2; return 1; }; }
# gpu_calls NAME [killed]: the calls recorded in $WORK/NAME are the ones the
# program says it made ("call NAME N" on stdout, "RTCALL NAME N" on
# stderr) and cuCtxSynchronize (not counted when killed inside it); the
# runtime copy's calls through the driver's tool tables (TOOLS_*, the
# reports' own: runtime_default_every_copy) left out; the fake CUPTI's own
# cuDriverGetVersion while it starts counted where it started.
gpu_calls() {
    local f started=0
    f=$(ls "$WORK/$1"/*.cutap 2>/dev/null | head -1)
    [ -n "$f" ] && [ $(( $(python3 "$TL/hdr_field.py" "$f" gpu) & 2 )) != 0 ] && started=1
    { sed -n 's/^call \([^ ]*\) \([0-9]*\)$/\1 \2/p' "$WORK/$1.out"; sed -n 's/^RTCALL \([^ ]*\) \([0-9]*\)$/\1 \2/p' "$WORK/$1.err"
      [ "${2:-}" = killed ] || echo "cuCtxSynchronize 1"
      # the fake CUPTI's own driver call while it starts (inside cuInit), as the real one makes them
      [ $started = 1 ] && echo "cuDriverGetVersion 1"; } | awk '{ n[$1] += $2 } END { for (k in n) print k, n[k] }' | sort >"$WORK/$1.made"
    "$CUTAP" report --format csv "$WORK/$1" | awk -F, 'NR > 1 && $3 > 0 && $2 !~ /^TOOLS_/ { print $2, $3 }' | sort >"$WORK/$1.seen" \
        || { say "  $1: cutap report failed"; return 1; }
    diff "$WORK/$1.made" "$WORK/$1.seen" >&2 || { say "  $1: calls made (<) and recorded (>) differ"; return 1; }
}
mono_ns() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
real_ns() { python3 -c 'import time; print(time.time_ns())'; }
