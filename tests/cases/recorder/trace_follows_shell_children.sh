#!/usr/bin/env bash
# sh -> two programs (one in a pipeline): every process with CUDA calls
# has its file; processes without CUDA calls (sh, cat) leave none.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/sh" -- sh -c "$T/t_paths_pie plt | cat >/dev/null; $T/t_record many 10 >/dev/null" \
    2>"$WORK/sh.err" || exit 1
[ "$(ls "$WORK/sh" | wc -l)" = 2 ] || { ls "$WORK/sh" >&2; exit 1; }
grep -q '2 processes traced into' "$WORK/sh.err"
