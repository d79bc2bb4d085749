#!/usr/bin/env bash
# Export outputs: mode 0600; an existing name (a symbolic link too) is
# not replaced without --force; with --force a symbolic link is
# replaced by the file, its target left as it was.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
d=$WORK/os; rm -rf "$d"; mkdir -p "$d/t"
$MK v3 "$d/t" || exit 1
for f in jsonl perfetto sqlite; do
    [ $f = sqlite ] && { "$CUTAP" export --format sqlite -o "$d/probe.db" "$d/t" 2>/dev/null || continue; }
    (umask 022; "$CUTAP" export --format $f -o "$d/out.$f" "$d/t" 2>/dev/null) || { say "  export $f failed"; exit 1; }
    [ "$(stat -c %a "$d/out.$f")" = 600 ] || { say "  $f: mode $(stat -c %a "$d/out.$f")"; exit 1; }
    echo precious >"$d/target.$f"
    ln -s "$d/target.$f" "$d/link.$f"
    "$CUTAP" export --format $f -o "$d/link.$f" "$d/t" 2>"$d/err"; [ $? = 1 ] || { say "  $f: replaced a link without --force"; exit 1; }
    grep -q 'exists (use --force' "$d/err" || { cat "$d/err" >&2; exit 1; }
    "$CUTAP" export --format $f --force -o "$d/link.$f" "$d/t" 2>/dev/null || { say "  $f --force failed"; exit 1; }
    [ ! -L "$d/link.$f" ] && [ -f "$d/link.$f" ] || { say "  $f: the link is still there"; exit 1; }
    [ "$(cat "$d/target.$f")" = precious ] || { say "  $f: wrote through the link"; exit 1; }
    [ "$(stat -c %a "$d/link.$f")" = 600 ] || { say "  $f --force: mode $(stat -c %a "$d/link.$f")"; exit 1; }
    # a dangling link: not created through it either
    ln -s "$d/nowhere.$f" "$d/dangling.$f"
    "$CUTAP" export --format $f -o "$d/dangling.$f" "$d/t" 2>/dev/null; [ $? = 1 ] || exit 1
    [ ! -e "$d/nowhere.$f" ] || { say "  $f: created the link's target"; exit 1; }
done
