#!/usr/bin/env bash
# The reader's NVTX pairing on damaged files: the fuzzer (see
# reader_fuzz_asan) on traces with ranges, marks and registered strings.
# slow
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/fuzz_reader ] && [ -x $T/t_nvtx ] || exit 77
d=$WORK/nfz i=0
rm -rf "$d"; mkdir -p "$d/seeds"
for m in "" hostile; do
    i=$((i + 1))
    "$CUTAP" trace -o "$d/t$i" -- $T/t_nvtx $m >/dev/null 2>&1 || { say "  cutap trace t_nvtx $m failed"; exit 1; }
    for f in "$d/t$i"/*.cutap; do cp "$f" "$d/seeds/$i-${f##*/}"; done
done
SAN_LEAKS=$(san_leaks $T/fuzz_reader) n=300
sanitized timeout 300 $T/fuzz_reader -d "$d/run" $FUZZ_SEED $n "$d/seeds"/*.cutap 2>"$d/fuzz.err"
rc=$?
if [ $rc != 0 ] || ! grep -q "^fuzz: $n iterations, " "$d/fuzz.err"; then
    say "  fuzz_reader exit $rc"; head -60 "$d/fuzz.err" >&2
    [ -f "$d/run/last.cutap" ] && cp "$d/run/last.cutap" "$B/fuzz_reader-nvtx-failure.cutap" \
        && say "  the input is kept in $B/fuzz_reader-nvtx-failure.cutap"
    exit 1
fi
grep '^fuzz: ' "$d/fuzz.err" >&2
