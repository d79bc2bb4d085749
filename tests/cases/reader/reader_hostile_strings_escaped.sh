#!/usr/bin/env bash
# Strings from the traced process (host, exe, cmdline, thread name,
# call and kernel names, captured strings, NVTX messages) with terminal
# escapes and bytes that are not UTF-8: text output shows them as
# \xNN, CSV quotes and escapes them, JSON stays valid and keeps them.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
d=$WORK/ho i=0; rm -rf "$d"; mkdir -p "$d"
$MK hostile "$d" || exit 1
for c in "dump" "report" "report --by thread" "report --by process" "report --tree" \
         "report --format csv" "report --by thread --format csv" "report --tree --format csv"; do
    i=$((i + 1))
    "$CUTAP" $c "$d" >"$WORK/ho.$i" 2>&1 || { say "  $c failed"; exit 1; }
    python3 "$TL/text_is_safe.py" "$WORK/ho.$i" || { say "  $c:"; cat -v "$WORK/ho.$i" >&2; exit 1; }
done
"$CUTAP" report --by thread "$d" | grep -Fq '== thread 66 (\x1b]0;pwned\x07) of process 666 on h\x1b]0;pwned\x07ost ==' \
    || { say "  thread label not escaped as expected"; exit 1; }
"$CUTAP" dump "$d" | grep -Fq 'f=0xabc<kern\x1b[5m\xe2\x82>' || { say "  kernel name"; "$CUTAP" dump "$d" | cat -v >&2; exit 1; }
"$CUTAP" dump "$d" | grep -Fq ' cuInit\x1b[1m\xc3()' || { say "  call name"; exit 1; }
"$CUTAP" report --format csv "$d" | grep -Fq 'driver,"cuInit\x1b[1m\xc3",1,' || { say "  CSV"; exit 1; }
# JSON: valid, and the strings come back as written (bytes that are
# not UTF-8 as the code points of their values)
"$CUTAP" export --format jsonl -o "$WORK/ho.jsonl" "$d" 2>/dev/null || exit 1
"$CUTAP" export --format perfetto -o "$WORK/ho.json" "$d" 2>/dev/null || exit 1
"$CUTAP" report --by thread --format json "$d" >"$WORK/ho.rj" 2>/dev/null || exit 1
python3 "$TL/hostile_strings_json.py" "$WORK/ho.jsonl" "$WORK/ho.json" "$WORK/ho.rj" || exit 1
