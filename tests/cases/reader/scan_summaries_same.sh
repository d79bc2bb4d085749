#!/usr/bin/env bash
# Issue #27: a trace file's record chunks are summarised on two threads
# while it is scanned (cli/read/prescan.c: the calling thread and a helper
# take windows of chunks in turn; the scan takes a chunk of well-formed
# call records whole from its summary, and reads any other record by
# record). What every reader prints is the same as with the scan alone
# (CUTAP_THREADS=1), byte for byte, stdout and stderr, with windows of 1,
# 2 and 3 chunks (CUTAP_TEST_SCAN_WINDOW; the default window is 4 MiB):
# report, report --tree, dump, the JSON lines export, on traces of many
# chunks and threads, of several processes and layers with NVTX ranges
# and metas among the calls, of GPU activity, a ring, a sparse file (holes
# between chunks and after them, skipped by SEEK_DATA) and a file damaged
# in the middle of a chunk (its message said once, in the same place).
# The fuzzer (tests/fuzz_reader.c) compares the two loads of every mutated
# file too.
. "$(dirname "$0")/../../lib/init.sh"

t=$WORK/tr
mkdir -p "$t"
"$CUTAP" trace -o "$WORK/a" -- sh -c "$T/t_record many 5000; $T/t_threads; $T/t_record mix 3000; $T/t_nvtx; $T/t_layers" \
    >/dev/null 2>&1 || { say "  traced run a failed"; exit 1; }
"$CUTAP" trace --gpu -o "$WORK/g" -- "$T/t_gpu" 2 2 >/dev/null 2>&1 || { say "  traced run g failed"; exit 1; }
( export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH FAKE_NCCL_LAUNCHES=5
  "$CUTAP" trace --ring 1M -o "$WORK/r" -- "$T/t_ring" 2 1500 ) >/dev/null 2>&1 || { say "  traced run r failed"; exit 1; }
# the largest file of a, made sparse (a hole of 3 chunks after its second
# chunk, and 5 after its end) and damaged (a record of its third chunk made
# longer than the chunk)
big=$(ls -S "$WORK"/a/*.cutap | head -1)
python3 - "$big" "$WORK" <<'PY' || { say "  could not make the sparse and damaged files"; exit 1; }
import os, struct, sys
src, work = sys.argv[1], sys.argv[2]
d = bytearray(open(src, "rb").read())
hs, cs = struct.unpack_from("<II", d, 12)   # header_size, chunk_size (cutap_format.h)
n = (len(d) - hs) // cs
assert n >= 8, "only %d chunks" % n
chunk = lambda i: d[hs + i * cs: hs + (i + 1) * cs]
# sparse: chunks 0 and 1, a hole of 3 chunks, the rest, a hole of 5 chunks
os.makedirs(work + "/sparse"); os.makedirs(work + "/damaged")
with open(work + "/sparse/" + os.path.basename(src), "wb") as f:
    f.write(d[:hs + 2 * cs]); f.seek(3 * cs, 1); f.write(d[hs + 2 * cs:]); f.truncate(f.tell() + 5 * cs)
# damaged: the third record chunk's fifth record made longer than its chunk
seen = 0
for i in range(n):
    off = hs + i * cs
    magic, typ = struct.unpack_from("<IH", d, off)
    if magic != 0x4b4e4843 or typ != 1:
        continue
    seen += 1
    if seen == 3:
        s, k = 1, 0
        while k < 4:
            s += struct.unpack_from("<H", d, off + s * 64 + 2)[0]; k += 1
        assert d[off + s * 64] == 1, "no fifth call record"
        struct.pack_into("<H", d, off + s * 64 + 2, 0xffff)
        break
assert seen == 3
open(work + "/damaged/" + os.path.basename(src), "wb").write(d)
PY
[ "$(stat -c %b "$WORK/sparse/${big##*/}")" -lt "$(stat -c %b "$big")" ] || [ "$(($(stat -c %b "$WORK/sparse/${big##*/}") * 512))" -lt "$(stat -c %s "$WORK/sparse/${big##*/}")" ] \
    || { say "  the sparse file has no holes on this file system"; }

nchunks() { local f=$1; python3 -c "import struct,os,sys; d=open(sys.argv[1],'rb').read(20); hs,cs=struct.unpack_from('<II',d,12); print((os.path.getsize(sys.argv[1])-hs)//cs)" "$f"; }
fails=0
for tr in a g r sparse damaged; do
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
        for w in 1 2 3; do
            run "$WORK/sum" CUTAP_TEST_SCAN_WINDOW=$w CUTAP_THREADS=2
            if ! cmp -s "$WORK/one" "$WORK/sum" || ! cmp -s "$WORK/one.err" "$WORK/sum.err"; then
                say "  $tr: $cmd with windows of $w chunks: not what the scan alone gives"
                diff "$WORK/one" "$WORK/sum" | head -4 >&2; diff "$WORK/one.err" "$WORK/sum.err" | head -4 >&2
                fails=$((fails + 1))
            fi
        done
    done
done
grep -q "longer than its chunk" "$WORK/one.err" || { say "  the damaged file's record was not said"; fails=$((fails + 1)); }
[ "$fails" = 0 ]
