#!/usr/bin/env bash
# Format version 4: a file names its layers and describes its ids
# (tests/mk_trace.c v4names): a layer this reader never heard of is
# reported by its name, a layer number that disagrees with the name
# loses to the name, and a function unknown to the reader's tables is
# dumped with the argument names and kinds the file gives. The library
# writes version 4 with every typed id's signature; version 3 files of
# the fixtures still read (reader_* cases).
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
rm -rf "$WORK/v4"; mkdir -p "$WORK/v4"
$MK v4names "$WORK/v4" || exit 1
"$CUTAP" report --format csv "$WORK/v4" | cut -d, -f1-3 | sort >"$WORK/v4.csv" || exit 1
# (reader_v4_self_describing.csv: layer, name and calls of each row, sorted)
diff "$HERE/reader_v4_self_describing.csv" "$WORK/v4.csv" >&2 || exit 1
"$CUTAP" dump "$WORK/v4" | grep -q 'cuFutureCall(ctx=0xc0ffee, count=-5) = 0x3' || { "$CUTAP" dump "$WORK/v4" >&2; exit 1; }
"$CUTAP" export --format jsonl -o "$WORK/v4.jsonl" "$WORK/v4" && grep -q '"layer":"futurelayer"' "$WORK/v4.jsonl" || exit 1
# the library's own files: version 4, a signature in each typed id's name record
rm -rf "$WORK/v4r"
CUTAP_TRACE=$WORK/v4r LD_PRELOAD=$LIB $T/t_record many 2 >/dev/null || exit 1
python3 "$TL/v4_self_description.py" "$WORK/v4r" || exit 1
