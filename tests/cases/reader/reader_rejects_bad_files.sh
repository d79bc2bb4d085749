#!/usr/bin/env bash
# The reader rejects a future version, random bytes, a short file and an
# empty directory with a clear message, and keeps what precedes a damaged
# record.
. "$(dirname "$0")/../../lib/init.sh"

# (CUTAP_ENV=0: no environment records among the first chunk's calls, whose
# count before the damaged slot is checked below)
CUTAP_ENV=0 "$CUTAP" trace -o "$WORK/rb" -- $T/t_record many 100 >/dev/null 2>&1 || exit 1
f=$(ls "$WORK/rb"/*.cutap)
mkdir -p "$WORK/bad"
# a future version
cp "$f" "$WORK/bad/v.cutap"; printf '\x09\x00\x00\x00' | dd of="$WORK/bad/v.cutap" bs=1 seek=8 conv=notrunc 2>/dev/null
"$CUTAP" report "$WORK/bad/v.cutap" >/dev/null 2>"$WORK/v.err"; [ $? = 1 ] || exit 1
grep -q 'version 9 is not supported' "$WORK/v.err" || { cat "$WORK/v.err" >&2; exit 1; }
# not a trace; shorter than a header; an empty directory
head -c 5000 /dev/urandom >"$WORK/bad/r.cutap"
"$CUTAP" report "$WORK/bad/r.cutap" 2>"$WORK/r.err" >/dev/null; [ $? = 1 ] && grep -q 'bad magic' "$WORK/r.err" || exit 1
head -c 100 "$f" >"$WORK/bad/s.cutap"
"$CUTAP" dump "$WORK/bad/s.cutap" 2>"$WORK/s.err" >/dev/null; [ $? = 1 ] && grep -q 'shorter than the header' "$WORK/s.err" || exit 1
mkdir -p "$WORK/empty"; "$CUTAP" report "$WORK/empty" 2>"$WORK/e.err"; [ $? = 1 ] && grep -q 'no trace files' "$WORK/e.err" || exit 1
# a damaged record: a message, the records before it kept
cp "$f" "$WORK/bad/d.cutap"; printf '\x07' | dd of="$WORK/bad/d.cutap" bs=1 seek=$((4096 + 64 * 50)) conv=notrunc 2>/dev/null
"$CUTAP" report --format csv "$WORK/bad/d.cutap" >"$WORK/d.csv" 2>"$WORK/d.err"; [ $? = 1 ] || exit 1
grep -q 'unknown record kind' "$WORK/d.err" && grep -q '^driver,cuCtxGetCurrent,4[0-9],0' "$WORK/d.csv" \
    || { cat "$WORK/d.err" "$WORK/d.csv" >&2; exit 1; }
