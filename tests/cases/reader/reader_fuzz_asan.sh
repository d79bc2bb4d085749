#!/usr/bin/env bash
# A mutation fuzzer (tests/fuzz_reader.c) runs the reader, report, dump and
# export on damaged files under AddressSanitizer and
# UndefinedBehaviorSanitizer, from seeds of every kind of trace (kernels,
# errors, many chunks, export-table slots, 16 threads, counting mode,
# version 1 files, a ring, a capture range, stacks and injected calls, GPU
# activity, RM parameter blocks), report --gpu included.
# slow
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/fuzz_reader ] || exit 77
d=$WORK/fz i=0
rm -rf "$d"; mkdir -p "$d/seeds"
# seeds: calls with kernels, failing calls and strings, many chunks,
# export-table slots, 16 threads, and a counting-mode file
for m in "t_record kernels" "t_record errors" "t_record many 5000" "t_paths_pie hidden" "t_threads"; do
    i=$((i + 1))
    "$CUTAP" trace -o "$d/t$i" -- $T/$m >/dev/null 2>&1 || { say "  cutap trace $m failed"; exit 1; }
    for f in "$d/t$i"/*.cutap; do cp "$f" "$d/seeds/$i-${f##*/}"; done
done
# the ioctl layer's records (decoded types, the dev word's flags)
( nvk_env && LD_PRELOAD=$NVK "$CUTAP" trace -o "$d/io" -- $T/t_ioctl raw "$NVDEV" >/dev/null 2>&1 ) \
    || { say "  t_ioctl raw"; exit 1; }
for f in "$d/io"/*.cutap; do cp "$f" "$d/seeds/io-${f##*/}"; done
# RM parameter blocks (issue #32, --ioctl-params: PARAMS metas behind their
# calls, by field, hex, cut, unreadable)
( nvk_env && LD_PRELOAD=$NVK "$CUTAP" trace --ioctl-params -o "$d/iop" -- $T/t_ioctl params "$NVDEV" >/dev/null 2>&1 ) \
    || { say "  t_ioctl params"; exit 1; }
for f in "$d/iop"/*.cutap; do cp "$f" "$d/seeds/iop-${f##*/}"; done
# a ring overwritten several times (META chunks, takes, the header's
# ring fields) and a capture range (counters in a trace file)
( export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH FAKE_NCCL_LAUNCHES=5
  "$CUTAP" trace --ring 1M -o "$d/ring" -- $T/t_ring 2 1500 &&
  "$CUTAP" trace --capture-range cudaProfilerApi -o "$d/cap" -- $T/t_ring 2 50 phase,prof &&
  "$CUTAP" trace --stack 'cuLaunchKernelEx,errors' --inject 'cuCtxSynchronize:error=700' -o "$d/stk" -- sh -c "$T/t_ranks 2; true" ) \
    >/dev/null 2>&1 \
    || { say "  t_ring seeds"; exit 1; }
for f in "$d/ring"/*.cutap "$d/cap"/*.cutap "$d/stk"/*.cutap; do cp "$f" "$d/seeds/rc-${f##*/}"; done
# GPU activity (issue #31: GPU chunks, GPU_NAME metas, the join)
"$CUTAP" trace --gpu -o "$d/gpu" -- $T/t_gpu 2 2 >/dev/null 2>&1 || { say "  t_gpu seed"; exit 1; }
for f in "$d/gpu"/*.cutap; do cp "$f" "$d/seeds/gpu-${f##*/}"; done
CUTAP_COUNT=$d/count LD_PRELOAD=$LIB $T/t_threads >/dev/null 2>&1 || exit 1
for f in "$d/count"/*.cutap; do cp "$f" "$d/seeds/count-${f##*/}"; done
# and files of format version 1 (40-byte counters)
gzip -dc tests/fixtures/v1-count.cutap.gz >"$d/seeds/v1-count.cutap" || exit 1
gzip -dc tests/fixtures/v1-trace.cutap.gz >"$d/seeds/v1-trace.cutap" || exit 1
[ "$(ls "$d/seeds" | wc -l)" -ge 8 ] || { ls "$d/seeds" >&2; exit 1; }
SAN_LEAKS=$(san_leaks $T/fuzz_reader)
sanitized timeout 300 $T/fuzz_reader -d "$d/run" $FUZZ_SEED $FUZZ_ITERATIONS "$d/seeds"/*.cutap 2>"$d/fuzz.err"
rc=$?
if [ $rc != 0 ] || ! grep -q "^fuzz: $FUZZ_ITERATIONS iterations, " "$d/fuzz.err"; then
    say "  fuzz_reader exit $rc"; head -60 "$d/fuzz.err" >&2
    [ $rc = 124 ] && say "  (killed by timeout 300)"
    if [ -f "$d/run/last.cutap" ]; then
        cp "$d/run/last.cutap" "$B/fuzz_reader-failure.cutap" && say "  the input is kept in $B/fuzz_reader-failure.cutap"
    fi
    exit 1
fi
grep '^fuzz: ' "$d/fuzz.err" >&2
