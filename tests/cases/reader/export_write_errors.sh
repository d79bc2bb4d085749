#!/usr/bin/env bash
# The file exports of a trace large enough for the parallel formatting
# (its workers write the output) and for the write-behind syncer (a
# thread of its own making each 8 MiB durable while the rest is written):
# one thread and four give the same bytes, the directory synced after the
# rename; a write that fails half-way
# (ulimit -f: EFBIG, never a signal) fails the export with the reason,
# exit 1, and leaves neither the output nor its temporary file, on one
# thread and on four. The same for one write failing alone (ENOSPC, made
# by a preloaded shim: the reason must be that write's, though a worker
# made it: helper-35 found "No such file or directory" said) and for the
# syncer's fdatasync failing (EIO), which stops the writing early.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/t" -- "$T/t_record" many 120000 >/dev/null 2>&1 || { say "  trace failed"; exit 1; }
for f in jsonl perfetto perfetto-proto; do
    for th in 1 4; do
        rm -f "$WORK/wlog"
        CUTAP_TEST_WRITE_LOG="$WORK/wlog" LD_PRELOAD="$T/libwritefail.so" CUTAP_THREADS=$th \
            "$CUTAP" export --format $f -o "$WORK/out.$f.$th" "$WORK/t" 2>"$WORK/err" ||
            { say "  export $f, $th threads, failed: $(cat "$WORK/err")"; exit 1; }
        # the published name made durable: its directory synced
        grep -q '^dirsyncs [1-9]' "$WORK/wlog" || { say "  $f, $th threads: the directory was not synced"; exit 1; }
    done
    cmp -s "$WORK/out.$f.1" "$WORK/out.$f.4" || { say "  $f: four threads wrote other bytes than one"; exit 1; }
    size=$(stat -c %s "$WORK/out.$f.1")
    # past two write-behind steps, so that the syncer ran (perfetto-proto's
    # smaller output fails early, through the workers' writes)
    [ $f = perfetto-proto ] || [ "$size" -gt $((17 << 20)) ] || { say "  $f: only $size bytes: no syncing tested"; exit 1; }
    limit=$((size / 1024 * 3 / 4))   # 1024-byte blocks: three quarters of the output
    for th in 1 4; do
        out=$WORK/full.$f.$th
        (ulimit -f $limit; CUTAP_THREADS=$th exec "$CUTAP" export --format $f -o "$out" "$WORK/t") 2>"$WORK/ferr"
        rc=$?
        [ $rc = 1 ] || { say "  $f, $th threads, a write failing: exit $rc (1 expected)"; cat "$WORK/ferr" >&2; exit 1; }
        grep -q "cannot write .*: File too large" "$WORK/ferr" || { say "  $f, $th threads: no reason given:"; cat "$WORK/ferr" >&2; exit 1; }
        ls "$out"* >/dev/null 2>&1 && { say "  $f, $th threads: left $(ls "$out"*)"; exit 1; }
        # one write of the output failing alone, and the syncer's fdatasync
        # (the first write failing: a write function returning -1 made
        # glibc 2.36's fwrite of more than its buffer crash there, helper-36)
        for fail in "CUTAP_TEST_WRITE_FAIL=1:28 No space left on device" "CUTAP_TEST_WRITE_FAIL=3:28 No space left on device" \
                    "CUTAP_TEST_FDATASYNC_FAIL=1:5 Input/output error"; do
            [ $f = perfetto-proto ] && [ "${fail%%=*}" = CUTAP_TEST_FDATASYNC_FAIL ] && continue   # (under 8 MiB: no syncing)
            rm -f "$WORK/wlog"
            env "${fail%% *}" CUTAP_TEST_WRITE_LOG="$WORK/wlog" LD_PRELOAD="$T/libwritefail.so" CUTAP_THREADS=$th \
                "$CUTAP" export --format $f -o "$out" "$WORK/t" 2>"$WORK/ferr"
            rc=$?
            [ $rc = 1 ] && grep -q "cannot write .*: ${fail#* }" "$WORK/ferr" ||
                { say "  $f, $th threads, ${fail%% *}: exit $rc (1 expected), said:"; cat "$WORK/ferr" >&2; exit 1; }
            ls "$out"* >/dev/null 2>&1 && { say "  $f, $th threads, ${fail%% *}: left $(ls "$out"*)"; exit 1; }
            # the syncer's failure (at 8 MiB) stops the writing at the next
            # 8 MiB step, not at the end of the output
            if [ "${fail%%=*}" = CUTAP_TEST_FDATASYNC_FAIL ]; then
                wrote=$(sed -n 's/^bytes //p' "$WORK/wlog")
                [ -n "$wrote" ] && [ "$wrote" -lt $((size - (4 << 20))) ] ||
                    { say "  $f, $th threads: the syncer's error let $wrote of $size bytes be written"; exit 1; }
            fi
        done
    done
done
# the first write failing, JSON lines on four threads, 12 times: with the
# write function returning -1 glibc crashed in about half of such runs
for i in $(seq 12); do
    CUTAP_TEST_WRITE_FAIL=1:28 LD_PRELOAD="$T/libwritefail.so" CUTAP_THREADS=4 \
        "$CUTAP" export --format jsonl -o "$WORK/first" "$WORK/t" 2>"$WORK/ferr"
    rc=$?
    [ $rc = 1 ] && grep -q "cannot write .*: No space left on device" "$WORK/ferr" ||
        { say "  the first write failing, run $i: exit $rc (1 expected)"; cat "$WORK/ferr" >&2; exit 1; }
done
exit 0
