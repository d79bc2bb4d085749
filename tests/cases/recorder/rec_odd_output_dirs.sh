#!/usr/bin/env bash
# CUTAP_TRACE at /proc, at a regular file, in another user's
# directory: the program runs as bare (output, status, stderr).
. "$(dirname "$0")/../../lib/init.sh"

printf 'x\n' >"$WORK/regular"
mkdir -p "$WORK/other" && chown 65534:65534 "$WORK/other" && chmod 0755 "$WORK/other"
for d in /proc/self/cutap-x /proc/cutap-x "$WORK/regular" "$WORK/regular/sub" "$WORK/other/t"; do
    UNDER="CUTAP_TRACE=$d LD_PRELOAD=$LIB" bare_same od $T/t_record many 300 || { say "  CUTAP_TRACE=$d"; exit 1; }
    UNDER="CUTAP_COUNT=$d LD_PRELOAD=$LIB" bare_same od $T/t_record many 300 || { say "  CUTAP_COUNT=$d"; exit 1; }
done
[ "$(cat "$WORK/regular")" = x ] || exit 1
