#!/usr/bin/env bash
# Issue #16, part 3: cutap export --format perfetto-proto writes Perfetto's
# native protobuf trace. protoc --decode_raw (an independent decoder)
# reads it whole, and a wire decoder of the tests' own (tests/lib/
# pftrace_check.py) finds, against the JSON lines export of the same trace,
# every call and NVTX range as a slice begun on its thread's track with its
# name (interned per packet sequence), every finished one ended, marks as
# instants, a range that does not nest on a track of its own, each
# sequence in time order, and the nesting the depths say: for 8 threads of
# nested calls (t_record threads), for NVTX ranges of every kind (t_nvtx,
# t_nvtx hostile) and for several processes (t_fork). At most 40 bytes a
# call on the 8-thread trace (JSON: about 700).
. "$(dirname "$0")/../../lib/init.sh"

command -v protoc >/dev/null || { say "  protoc (protobuf-compiler) missing"; exit 77; }
i=0
for m in "t_record threads 8 2000" "t_nvtx" "t_nvtx hostile" "t_fork"; do
    i=$((i + 1))
    "$CUTAP" trace -o "$WORK/t$i" -- $T/$m >/dev/null 2>&1 || { say "  cutap trace $m failed"; exit 1; }
    "$CUTAP" export --format perfetto-proto -o "$WORK/t$i.pftrace" "$WORK/t$i" || exit 1
    "$CUTAP" export --format jsonl -o "$WORK/t$i.jsonl" "$WORK/t$i" || exit 1
    protoc --decode_raw <"$WORK/t$i.pftrace" >"$WORK/t$i.txt" || { say "  protoc cannot read the $m export"; exit 1; }
    [ "$(grep -c '^1 {' "$WORK/t$i.txt")" -gt 0 ] || exit 1
    python3 "$TL/pftrace_check.py" "$WORK/t$i.pftrace" "$WORK/t$i.jsonl" >"$WORK/t$i.check" \
        || { say "  $m"; exit 1; }
done
read -r calls bpc < <(sed 's/calls=\([0-9]*\) bytes_per_call=\([0-9.]*\)/\1 \2/' "$WORK/t1.check")
[ "$calls" = 48000 ] && python3 -c "import sys; sys.exit(float(sys.argv[1]) > 40)" "$bpc" \
    || { say "  t_record threads: $calls calls, $bpc bytes a call"; exit 1; }
say "  $bpc bytes a call"
