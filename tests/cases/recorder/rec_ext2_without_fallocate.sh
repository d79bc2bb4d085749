#!/usr/bin/env bash
# A real filesystem without fallocate (ext2 on a loop device): full
# before the start, and outgrown mid-run; the program as bare, the
# header says it stopped for lack of space.
. "$(dirname "$0")/../../lib/init.sh"

command -v mkfs.ext2 >/dev/null || { say "  no mkfs.ext2: skipped"; exit 77; }
m=$WORK/e2m img=$WORK/e2.img
truncate -s 6M "$img" && mkfs.ext2 -q -F "$img" >/dev/null 2>&1 && mkdir -p "$m" \
    && mount -o loop "$img" "$m" 2>/dev/null || { say "  cannot loop-mount ext2 here: skipped"; exit 77; }
on_exit "umount -l '$m'"
fallocate -l 64k "$m/probe" 2>/dev/null && { say "  this ext2 has fallocate: skipped"; exit 77; }
UNDER="CUTAP_TRACE=$m/p LD_PRELOAD=$LIB" bare_same e2a $T/t_record many 200000 || exit 1
f=$(ls "$m"/p/*.cutap) || exit 1
read -r ver flags err reason lost <<<"$(hdr_loss "$f")"
[ $((flags & 4)) = 4 ] && [ "$err" = 28 ] && [ "$reason" = 1 ] && [ "$lost" -gt 0 ] \
    || { say "  header: flags $flags errno $err reason $reason lost $lost"; exit 1; }
rm -rf "$m/p"; fill_fs "$m"
UNDER="CUTAP_TRACE=$m/q LD_PRELOAD=$LIB" bare_same e2b $T/t_record many 3000 || exit 1
UNDER="CUTAP_COUNT=$m/r LD_PRELOAD=$LIB" bare_same e2c $T/t_record many 3000
