#!/usr/bin/env bash
# Issue #31: trace --gpu of a program that forks after cuInit and whose
# child makes driver calls (t_fork): the parent's file has its GPU
# activity started and flushed (ASKED|STARTED|FLUSHED|CALLBACKS), the child's only
# ASKED (CUPTI does not run in a forked child; cutap's GPU state is reset
# there, nothing pushed or written), every call of both is recorded, the
# output is as bare, and report --gpu says why the child has none.
. "$(dirname "$0")/../../lib/init.sh"

bare=$("$T/t_fork" 2>&1 | sed 's/[0-9][0-9]*:/N:/') || { say "  bare t_fork failed"; exit 1; }
rm -rf "${WORK:?}/f"
got=$("$CUTAP" trace --gpu -o "$WORK/f" -- "$T/t_fork" 2>"$WORK/f.err" | sed 's/[0-9][0-9]*:/N:/') \
    || { say "  cutap trace --gpu t_fork failed"; tail -3 "$WORK/f.err" >&2; exit 1; }
[ "$got" = "$bare" ] || { say "  output '$got', bare '$bare'"; exit 1; }
bits=$(for f in "$WORK/f"/*.cutap; do python3 "$TL/hdr_field.py" "$f" gpu; done | sort -n | tr '\n' ' ')
[ "$bits" = "1 83 " ] || { say "  gpu bits of child and parent: $bits, want 1 83"; exit 1; }
"$CUTAP" report --format csv "$WORK/f" | grep -q '^driver,cuMemAlloc_v2,3,' || { say "  the child's calls are missing"; exit 1; }
"$CUTAP" report --gpu "$WORK/f" 2>/dev/null | grep -q "GPU activity not started (no successful cuInit of its own" \
    || { say "  report --gpu does not say why the child has none"; exit 1; }
