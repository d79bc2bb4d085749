#!/usr/bin/env bash
# cutap --help and each command's --help: status 0 on stdout, every
# option the command takes named, examples given; the top help names
# every layer of the filter language (nvml included) and --tree/--force.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" --help >"$WORK/h.top" || exit 1
for o in --tree --force --version nvml examples:; do grep -q -- "$o" "$WORK/h.top" || { say "  top help lacks $o"; exit 1; }; done
declare -A opts=([trace]="-o -e --runtime=all|symbols --no-nvtx examples:"
                 [stat]="-o --force -e --time-all --runtime=all|symbols examples:")
for c in "${!opts[@]}"; do
    "$CUTAP" $c --help >"$WORK/h.$c" || { say "  $c --help: status $?"; exit 1; }
    for o in ${opts[$c]}; do grep -q -- "$o" "$WORK/h.$c" || { say "  $c --help lacks $o"; exit 1; }; done
done
