#!/usr/bin/env bash
# A command that makes no CUDA call: cutap says so and leaves no
# directory of its own naming behind (an -o directory stays).
. "$(dirname "$0")/../../lib/init.sh"

(cd "$WORK" && mkdir -p nt0 && cd nt0 && "$CUTAP" trace -- true 2>"$WORK/nt0.err") || exit 1
grep -q '^cutap: no CUDA call was recorded (cutap-20[0-9-]* not kept)$' "$WORK/nt0.err" \
    && [ -z "$(ls -A "$WORK/nt0")" ] || { cat "$WORK/nt0.err" >&2; ls -A "$WORK/nt0" >&2; exit 1; }
"$CUTAP" trace -o "$WORK/nt0o" -- true 2>/dev/null && [ -d "$WORK/nt0o" ]
