#!/usr/bin/env bash
# Issue #31: --gpu as a site's default. With CUTAP_TRACE_GPU=1 in its
# environment `cutap trace` records GPU activity without --gpu (header
# ASKED|STARTED|FLUSHED|CALLBACKS); --no-gpu turns it off for one command (header
# gpu 0, no CUPTI started), and so does --ring (the default yields to a
# ring; an explicit --gpu with --ring stays a usage error).
. "$(dirname "$0")/../../lib/init.sh"

bits() { python3 "$TL/hdr_field.py" "$(ls "$WORK/$1"/*.cutap | head -1)" gpu; }
rm -rf "${WORK:?}"/d1 "$WORK"/d2 "$WORK"/d3
CUTAP_TRACE_GPU=1 "$CUTAP" trace -o "$WORK/d1" -- "$T/t_gpu" 1 1 >/dev/null 2>&1 || { say "  trace with the default failed"; exit 1; }
[ "$(bits d1)" = 83 ] || { say "  CUTAP_TRACE_GPU=1: gpu bits $(bits d1), want 83 (ASKED|STARTED|FLUSHED|CALLBACKS)"; exit 1; }
CUTAP_TRACE_GPU=1 "$CUTAP" trace --no-gpu -o "$WORK/d2" -- "$T/t_gpu" 1 1 >/dev/null 2>&1 || { say "  --no-gpu failed"; exit 1; }
[ "$(bits d2)" = 0 ] || { say "  --no-gpu: gpu bits $(bits d2), want 0"; exit 1; }
CUTAP_TRACE_GPU=1 "$CUTAP" trace --ring 4M -o "$WORK/d3" -- "$T/t_gpu" 1 1 >/dev/null 2>&1 || { say "  the default with --ring failed"; exit 1; }
[ "$(bits d3)" = 0 ] || { say "  default with --ring: gpu bits $(bits d3), want 0"; exit 1; }
CUTAP_TRACE_GPU=1 "$CUTAP" trace --gpu --ring 4M -o "$WORK/d4" -- true >/dev/null 2>&1
[ $? = 2 ] || { say "  --gpu --ring with the default: not a usage error"; exit 1; }
