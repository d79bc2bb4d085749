#!/usr/bin/env bash
# The coverage-guided fuzz target (clang's libFuzzer,
# tests/fuzz/fuzz_trace.c, built with -fsanitize=fuzzer,address,undefined:
# the reader, report in every format and grouping, --tree, dump, the JSON
# lines and Perfetto exports (SQLite with FUZZ_SQLITE=1), each input read
# from memory so that AddressSanitizer sees any read past its end) for
# FUZZ_SECONDS (60) from tests/fuzz/corpus (recorder traces cut to 4 KiB
# chunks by tests/fuzz/rechunk.py, version 1 fixtures, crafted version 3,
# hostile and damaged files; add every input that once failed), whose inputs
# must all pass first. A crash, leak, sanitizer report, timeout (20 s) or
# use of over 2 GiB fails; the input is kept in $B/fuzz_trace-failure.
# Skipped without clang's fuzzer runtime. A longer run: cd /tmp &&
# build/tests/fuzz_trace -close_fd_mask=2 -max_len=65536 -timeout=20
# -max_total_time=1800 CORPUS_COPY.
# slow
. "$(dirname "$0")/../../lib/init.sh"

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
F=$T/fuzz_trace d=$WORK/lf
[ -x $F ] || { say "  $F not built (no clang with -fsanitize=fuzzer): skipped"; exit 77; }
rm -rf "$d"; mkdir -p "$d/corpus" "$d/art"
cp tests/fuzz/corpus/* "$d/corpus/" || exit 1
# (LeakSanitizer usable? asked of the sanitized command: the fuzz
# target takes every argument as an input)
leaks=0; [ -x "$B/asan/cutap" ] && leaks=$(SAN_LEAKS= san_leaks "$B/asan/cutap")
# every corpus input, alone
(cd "$d" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $F -detect_leaks=$leaks -timeout=20 \
    -rss_limit_mb=2048 -close_fd_mask=2 "$ROOT"/tests/fuzz/corpus/* >"$d/replay.log" 2>&1) \
    || { say "  a corpus input fails:"; grep -E 'ERROR|SUMMARY|Running|#[0-9] ' "$d/replay.log" | head -30 >&2; exit 1; }
(cd "$d" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $F -detect_leaks=$leaks -timeout=20 \
    -rss_limit_mb=2048 -max_len=65536 -max_total_time=$FUZZ_SECONDS -print_final_stats=1 -close_fd_mask=2 \
    -artifact_prefix="$d/art/" corpus >"$d/fuzz.log" 2>&1)
rc=$?
if [ $rc != 0 ]; then
    say "  fuzz_trace exit $rc:"; grep -E 'ERROR|SUMMARY|#[0-9] |Test unit written' "$d/fuzz.log" | head -30 >&2
    cp "$d"/art/* "$B/" 2>/dev/null && say "  the input is kept in $B/ ($(ls "$d/art" | tr '\n' ' '))"
    exit 1
fi
grep -E '^#[0-9]+ *DONE' "$d/fuzz.log" | tail -1 >&2
grep -E 'stat::number_of_executed_units' "$d/fuzz.log" >&2
