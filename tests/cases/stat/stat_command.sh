#!/usr/bin/env bash
# cutap stat: the table (on stderr, or in -o FILE) counts calls and errors,
# over 16 threads too; the exit status is the command's.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" stat -- $T/t_paths_now plt >/dev/null 2>"$WORK/st.err" || { cat "$WORK/st.err" >&2; exit 1; }
# cuMemAlloc_v2: 2 calls, 1 error; the table goes to stderr.
awk '$NF == "cuMemAlloc_v2" && $3 == 2 && $4 == 1 {ok=1} END {exit !ok}' "$WORK/st.err" \
    || { cat "$WORK/st.err" >&2; exit 1; }
"$CUTAP" stat -o "$WORK/st.txt" -- $T/t_threads >/dev/null 2>&1 || exit 1
awk '$NF == "cuCtxGetCurrent" && $3 == 8000 {ok=1} END {exit !ok}' "$WORK/st.txt" || { cat "$WORK/st.txt" >&2; exit 1; }
"$CUTAP" stat -- sh -c 'exit 5' 2>/dev/null; [ $? = 5 ]
