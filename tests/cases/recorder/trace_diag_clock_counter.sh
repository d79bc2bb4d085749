#!/usr/bin/env bash
# CUTAP_DIAG_CLOCK=counter (a cost diagnostic, issue #27): a counter stands
# for the record clock, one step a reading, so every fast-path call after
# the first lasts exactly one step: under a ns, as the file's calibration
# pairs still read the real counter; without it the calls' durations vary
# (the control: the setting is what makes them equal). Counting mode under
# it still samples (its 1 us threshold comes from those pairs too).
. "$(dirname "$0")/../../lib/init.sh"

durations() {   # DIR -> calls of cuCtxGetCurrent, the spread (ns) of calls 2..'s durations, whether starts never go back, the longest
    "$CUTAP" export --format jsonl -o "$1.jsonl" "$1" || exit 1
    python3 - "$1.jsonl" <<'PY'
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
calls = [c for c in calls if c.get("type") == "call" and c.get("name") == "cuCtxGetCurrent"]
t = [c["t_ns"] for c in calls]
d = [c["dur_ns"] for c in calls[1:]] or [0]
print(len(calls), max(d) - min(d), int(all(a <= b for a, b in zip(t, t[1:]))), max(d))
PY
}
CUTAP_CLOCK=tsc CUTAP_DIAG_CLOCK=counter "$CUTAP" trace -o "$WORK/diag" -- $T/t_record many 300 >/dev/null 2>&1 || exit 1
read -r n spread inc longest <<<"$(durations "$WORK/diag")"
[ "$n" = 300 ] && [ "$spread" -le 1 ] && [ "$longest" -le 1 ] && [ "$inc" = 1 ] \
    || { say "  counter clock: $n calls, durations spread $spread ns (longest $longest), increasing $inc"; exit 1; }
CUTAP_CLOCK=tsc "$CUTAP" trace -o "$WORK/tsc" -- $T/t_record many 300 >/dev/null 2>&1 || exit 1
read -r n spread inc longest <<<"$(durations "$WORK/tsc")"
[ "$n" = 300 ] && [ "$spread" -gt 1 ] || { say "  control: $n calls, durations spread $spread ns"; exit 1; }
# Counting mode under the counter: cheap calls sampled, not all timed.
CUTAP_CLOCK=tsc CUTAP_DIAG_CLOCK=counter "$CUTAP" stat -o "$WORK/st.txt" -- $T/t_record many 30000 >/dev/null 2>&1 || exit 1
grep -q '^~ estimated from [0-9]* of 30000 calls timed$' "$WORK/st.txt" || { say "  counting under the counter clock:"; cat "$WORK/st.txt" >&2; exit 1; }
