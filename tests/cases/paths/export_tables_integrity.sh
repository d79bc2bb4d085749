#!/usr/bin/env bash
# Issue #14: the two tables the runtime verifies. The fake driver's
# INTEGRITY_CHECK answers as the real one does (a keyed hash of the
# addresses of the tables, the process, thread, time and device), and the
# program checks the answer as the real runtime does, against the tables it
# holds. With CUTAP_HIDDEN=+CUDART_INTERFACE,+INTEGRITY_CHECK cutap hands out
# copies of both (their calls recorded: CUDART_INTERFACE#1,
# INTEGRITY_CHECK#1) and the check still passes, because cutap recomputes
# the answer for its copies. A driver whose hash is not the one cutap knows
# (FAKE_INTEGRITY_OTHER): cutap finds out before handing out anything,
# keeps both tables real (nothing of them recorded), says so, and the
# program's check passes; so by default; CUTAP_INTEGRITY=0 keeps them real (export_tables: copies by default
# where the answer is the known one; export_tables_all: CUTAP_HIDDEN=all).
. "$(dirname "$0")/../../lib/init.sh"

EXPECT_WRAPPED_CUDART=1 CUTAP_HIDDEN=+CUDART_INTERFACE,+INTEGRITY_CHECK traced_equal integ $T/t_paths_pie hidden || exit 1
# (traced_equal leaves the JSON lines of its last run, the fused path's)
count() { python3 "$TL/jsonl_count.py" "$1" type=call "${@:2}"; }
[ "$(count "$WORK/integ.jsonl" name=INTEGRITY_CHECK#1 layer=hidden)" = 1 ] \
    && [ "$(count "$WORK/integ.jsonl" name=CUDART_INTERFACE#1 layer=hidden)" = 1 ] \
    && [ "$(count "$WORK/integ.jsonl" name=FAKE_SIZED#1)" = 1 ] || { say "  slots of the copies"; exit 1; }
# a hash cutap does not know: both tables real, said, the program unharmed
rm -rf "$WORK/other"
FAKE_INTEGRITY_OTHER=1 CUTAP_HIDDEN=+CUDART_INTERFACE,+INTEGRITY_CHECK "$CUTAP" trace -o "$WORK/other" -- \
    $T/t_paths_pie hidden >"$WORK/other.out" 2>"$WORK/other.err" || { cat "$WORK/other.out" "$WORK/other.err" >&2; exit 1; }
! grep -q FAIL "$WORK/other.out" || { grep FAIL "$WORK/other.out" >&2; exit 1; }
grep -q 'integrity check is not the hash cutap knows' "$WORK/other.err" || { say "  not said"; cat "$WORK/other.err" >&2; exit 1; }
"$CUTAP" export --format jsonl -o "$WORK/other.jsonl" "$WORK/other" || exit 1
[ "$(count "$WORK/other.jsonl" 'name~^(INTEGRITY_CHECK|CUDART_INTERFACE)#')" = 0 ] \
    && [ "$(count "$WORK/other.jsonl" name=FAKE_SIZED#1)" = 1 ] || { say "  copies made anyway"; exit 1; }
# by default too
rm -rf "$WORK/other2"
FAKE_INTEGRITY_OTHER=1 "$CUTAP" trace -o "$WORK/other2" -- $T/t_paths_pie hidden >"$WORK/other2.out" 2>&1 || exit 1
! grep -q FAIL "$WORK/other2.out" && grep -q 'integrity check is not the hash cutap knows' "$WORK/other2.out" || exit 1
# CUTAP_INTEGRITY=0: the check (and so the copies) off
rm -rf "$WORK/off"
CUTAP_INTEGRITY=0 "$CUTAP" trace -o "$WORK/off" -- $T/t_paths_pie hidden >"$WORK/off.out" 2>&1 || exit 1
! grep -q FAIL "$WORK/off.out" || exit 1
"$CUTAP" export --format jsonl -o "$WORK/off.jsonl" "$WORK/off" || exit 1
[ "$(count "$WORK/off.jsonl" 'name~^(INTEGRITY_CHECK|CUDART_INTERFACE)#')" = 0 ] \
    && [ "$(count "$WORK/off.jsonl" name=cuDeviceGetUuid)" = 1 ] || { say "  CUTAP_INTEGRITY=0"; exit 1; }
