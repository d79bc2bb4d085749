#!/usr/bin/env bash
# Issue #27: a trace file's record chunks are summarised on two threads
# while it is scanned (cli/read/prescan.c: the calling thread and a helper
# take windows of chunks in turn; the scan takes a chunk of well-formed
# call records whole from its summary, and reads any other record by
# record). What every reader prints is the same as with the scan alone
# (CUTAP_THREADS=1), byte for byte, stdout and stderr, with windows of 1,
# 2 and 3 chunks (CUTAP_TEST_SCAN_WINDOW) and the default 4 MiB:
# report, report --tree, dump, the JSON lines export, on traces of many
# chunks and threads, of several processes and layers with NVTX ranges
# and metas among the calls, of GPU activity, a ring, 23 MiB of two
# threads (several default windows), a sparse file (holes between chunks
# and after them, skipped by SEEK_DATA), a chunk of calls alone of 40 ids
# (more than a summary holds) and a file damaged in the middle of two
# chunks of calls alone (a record longer than its chunk, one with
# captures it has no room for: each message said once, in the same
# place). Chunks with metas are never summarised, so the ids and the
# damage are put in chunks of calls alone.
# The fuzzer (tests/fuzz_reader.c) compares the two loads of every mutated
# file too.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/a" -- sh -c "$T/t_record many 5000; $T/t_threads; $T/t_record mix 3000; $T/t_nvtx; $T/t_layers" \
    >/dev/null 2>&1 || { say "  traced run a failed"; exit 1; }
"$CUTAP" trace --gpu -o "$WORK/g" -- "$T/t_gpu" 2 2 >/dev/null 2>&1 || { say "  traced run g failed"; exit 1; }
# a file of more than two default windows (4 MiB): summarised without the tests' knob
"$CUTAP" trace -o "$WORK/big" -- "$T/t_record" threads 2 60000 >/dev/null 2>&1 || { say "  traced run big failed"; exit 1; }
( export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH FAKE_NCCL_LAUNCHES=5
  "$CUTAP" trace --ring 1M -o "$WORK/r" -- "$T/t_ring" 2 1500 ) >/dev/null 2>&1 || { say "  traced run r failed"; exit 1; }
# the largest file of a, made sparse (a hole of 3 chunks after its second
# chunk, and 5 after its end) and damaged (a record of its third chunk made
# longer than the chunk)
small=$(ls -S "$WORK"/a/*.cutap | head -1) big=$(ls -S "$WORK"/big/*.cutap | head -1)
python3 - "$small" "$big" "$WORK" <<'PY' || { say "  could not make the sparse, many-id and damaged files"; exit 1; }
import os, struct, sys
small, big, work = sys.argv[1:4]
MAGIC, RECORDS = 0x4b4e4843, 1

def load(path):
    d = bytearray(open(path, "rb").read())
    hs, cs = struct.unpack_from("<II", d, 12)   # header_size, chunk_size (cutap_format.h)
    return d, hs, cs, (len(d) - hs) // cs

def records(d, off, cs):   # (slot, kind) of a chunk's records
    s = 1
    while s < cs // 64 and d[off + s * 64] in (1, 2):
        yield s, d[off + s * 64]
        s += struct.unpack_from("<H", d, off + s * 64 + 2)[0]

def plain_chunks(d, hs, cs, n):   # offsets of the record chunks holding calls only (the ones summarised)
    for i in range(n):
        off = hs + i * cs
        magic, typ = struct.unpack_from("<IH", d, off)
        if magic == MAGIC and typ == RECORDS and all(k == 1 for _, k in records(d, off, cs)):
            yield off

def save(d, sub, path):
    os.makedirs(work + "/" + sub)
    open(work + "/" + sub + "/" + os.path.basename(path), "wb").write(d)

# sparse: the small trace's chunks 0 and 1, a hole of 3 chunks, the rest, a hole of 5 chunks
d, hs, cs, n = load(small)
assert n >= 8, "only %d chunks" % n
os.makedirs(work + "/sparse")
with open(work + "/sparse/" + os.path.basename(small), "wb") as f:
    f.write(d[:hs + 2 * cs]); f.seek(3 * cs, 1); f.write(d[hs + 2 * cs:]); f.truncate(f.tell() + 5 * cs)
d, hs, cs, n = load(big)
plain = list(plain_chunks(d, hs, cs, n))
assert len(plain) >= 4, "only %d chunks of calls alone" % len(plain)
# many ids: the calls of the big trace's second chunk of calls alone given
# 40 ids in turn (more than a summary holds: read record by record), ids
# the file never names ("id#1000" ...)
m = bytearray(d)
calls = [s for s, _ in records(m, plain[1], cs)]
assert len(calls) > 40
for k, s in enumerate(calls):
    struct.pack_into("<I", m, plain[1] + s * 64 + 4, 1000 + k % 40)
save(m, "manyids", big)
# damaged: in the big trace's third chunk of calls alone its fifth record
# made longer than the chunk; in the fourth, its second record with
# arguments given 200 captures it has no room for (cutap_rec_call's nargs,
# byte 34; ncap, byte 35)
s5 = [s for s, _ in records(d, plain[2], cs)][4]
struct.pack_into("<H", d, plain[2] + s5 * 64 + 2, 0xffff)
s3 = [s for s, _ in records(d, plain[3], cs) if d[plain[3] + s * 64 + 34] >= 1][1]   # (nargs >= 1: else a
d[plain[3] + s3 * 64 + 35] = 200   # capture of arg 0 is "of a missing argument", said before any room is looked at)
save(d, "damaged", big)
PY
[ "$(($(stat -c %b "$WORK/sparse/${small##*/}") * 512))" -lt "$(stat -c %s "$WORK/sparse/${small##*/}")" ] \
    || say "  (the sparse file has no holes on this file system)"

nchunks() { local f=$1; python3 -c "import struct,os,sys; d=open(sys.argv[1],'rb').read(20); hs,cs=struct.unpack_from('<II',d,12); print((os.path.getsize(sys.argv[1])-hs)//cs)" "$f"; }
fails=0
for tr in a g r big sparse damaged manyids; do
    f=$(ls -S "$WORK/$tr"/*.cutap | head -1)
    echo "$tr: $(ls "$WORK/$tr"/*.cutap | wc -l) files, the largest of $(nchunks "$f") chunks"
    for cmd in "report" "report --tree" "dump" "export"; do
        run() {   # OUT ENV...: the command's stdout and stderr
            local o=$1; shift
            if [ "$cmd" = export ]; then
                rm -f "$WORK/out.jsonl"   # (one name: the messages name it)
                env "$@" "$CUTAP" export --format jsonl -o "$WORK/out.jsonl" "$WORK/$tr" >"$o" 2>"$o.err"
                cat "$WORK/out.jsonl" >>"$o" 2>/dev/null
            else
                # shellcheck disable=SC2086
                env "$@" "$CUTAP" $cmd "$WORK/$tr" >"$o" 2>"$o.err"
            fi
        }
        run "$WORK/one" CUTAP_THREADS=1
        [ -s "$WORK/one" ] || { say "  $tr: $cmd printed nothing"; fails=$((fails + 1)); continue; }
        for w in 1 2 3 ""; do   # ("": the default window)
            run "$WORK/sum" ${w:+CUTAP_TEST_SCAN_WINDOW=$w} CUTAP_THREADS=2
            if ! cmp -s "$WORK/one" "$WORK/sum" || ! cmp -s "$WORK/one.err" "$WORK/sum.err"; then
                say "  $tr: $cmd with windows of $w chunks: not what the scan alone gives"
                diff "$WORK/one" "$WORK/sum" | head -4 >&2; diff "$WORK/one.err" "$WORK/sum.err" | head -4 >&2
                fails=$((fails + 1))
            fi
        done
    done
done
for why in "longer than its chunk" "capture header beyond the record"; do
    CUTAP_THREADS=1 "$CUTAP" report "$WORK/damaged" 2>&1 >/dev/null | grep -q "$why" || { say "  the damaged file's record ($why) was not said"; fails=$((fails + 1)); }
done
"$CUTAP" dump "$WORK/manyids" 2>/dev/null | grep -q "id#1039" || { say "  the many ids' file: no call of id#1039"; fails=$((fails + 1)); }
[ "$fails" = 0 ]
