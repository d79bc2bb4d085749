#!/usr/bin/env bash
# --no-nvtx: no NVTX call recorded; a library the user named instead
# (here none: NVTX then attaches nothing) is used; the program's output
# and the driver calls recorded are the same.
. "$(dirname "$0")/../../lib/init.sh"

[ -x $T/t_nvtx ] || exit 77
$T/t_nvtx >"$WORK/nn.bare" 2>&1 || exit 1
for how in opt env; do
    if [ $how = opt ]; then "$CUTAP" trace --no-nvtx -o "$WORK/nn$how" -- $T/t_nvtx >"$WORK/nn.out" 2>"$WORK/nn.err"
    else NVTX_INJECTION64_PATH=$WORK/none.so "$CUTAP" trace -o "$WORK/nn$how" -- $T/t_nvtx >"$WORK/nn.out" 2>"$WORK/nn.err"; fi
    [ $? = 0 ] || { cat "$WORK/nn.err" >&2; exit 1; }
    diff "$WORK/nn.bare" "$WORK/nn.out" >&2 || exit 1
    report_names "$WORK/nn$how" >"$WORK/nn.seen" || exit 1
    grep -q '^nvtx' "$WORK/nn.seen" && { say "  $how: NVTX calls recorded"; exit 1; }
    called "$WORK/nn.out" >"$WORK/nn.called"
    same_counts "$WORK/nn.called" "$WORK/nn.seen" || exit 1
    "$CUTAP" export --format jsonl -o "$WORK/nn$how.jsonl" "$WORK/nn$how" || exit 1
    [ "$(python3 "$TL/jsonl_count.py" "$WORK/nn$how.jsonl" type=range)" = 0 ] \
        && [ "$(python3 "$TL/jsonl_count.py" "$WORK/nn$how.jsonl" type=mark)" = 0 ] || { say "  $how: ranges or marks recorded"; exit 1; }
done
exit 0
