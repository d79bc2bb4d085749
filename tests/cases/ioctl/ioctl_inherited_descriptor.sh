#!/usr/bin/env bash
# A device descriptor inherited across exec (opened without O_CLOEXEC by
# the image before, at a number of its own) is recognised at its first
# NVIDIA request, not by a scan of every descriptor at start-up: the new
# image's CHECK_VERSION_STR on it is recorded and decoded, and the request
# after it (FIONREAD, not NVIDIA's) as any request on a device; the output
# is bare's.
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
nvk_run inh inherit "$NVDEV" || exit 1
grep -qx ok "$WORK/inh.out" || { cat "$WORK/inh.out" >&2; exit 1; }
"$CUTAP" dump "$WORK/inh" >"$WORK/inh.dump" || exit 1
for s in 'CHECK_VERSION_STR(fd=100, dev=nvidiactl, cmd=0, reply=0x1, version="580.159.04") = 0' \
         'ioctl(fd=100, dev=nvidiactl, request=0x541b, arg=0x[0-9a-f]*) = -1 ENOTTY'; do
    grep -q -- "$s" "$WORK/inh.dump" || { say "  dump lacks: $s"; cut -c1-200 "$WORK/inh.dump" >&2; exit 1; }
done
