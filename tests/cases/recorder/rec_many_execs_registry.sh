#!/usr/bin/env bash
# 1,500 short programs without CUDA (a shell loop, as in a build) then
# a static one: the registry (1,023 slots) does not fill: programs
# that started with cutap free their exec notes and claim nothing
# more, so the static program is still named and nothing is "not
# listed" (was full after ~500 programs).
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/t_static ] || { say "  no static libc: skipped"; exit 77; }
"$CUTAP" trace -o "$WORK/mx" -- sh -c "i=0; while [ \$i -lt 1500 ]; do /bin/true; i=\$((i + 1)); done; $T/t_static a; $T/t_record many 2" \
    >/dev/null 2>"$WORK/mx.err" || { cat "$WORK/mx.err" >&2; exit 1; }
grep -q "^cutap: 1 process not traced: $T/t_static (pid [0-9]*): statically linked$" "$WORK/mx.err" \
    && ! grep -q 'not listed' "$WORK/mx.err" && grep -q '^cutap: 1 process traced into .*: 2 calls, ' "$WORK/mx.err" \
    || { cat "$WORK/mx.err" >&2; exit 1; }
