#!/usr/bin/env bash
# report's median: exact up to 4096 calls of a row, then from a
# log-linear histogram within 1/256 of the true value (docs/cutap-report.md).
. "$(dirname "$0")/../../lib/init.sh"

[ -x $MK ] || exit 77
d=$WORK/med
for n in 4096:3047 20001:11000 200001:101000; do
    want=${n#*:}; n=${n%:*}
    rm -rf "$d"; mkdir -p "$d"
    $MK durations "$d" $n || exit 1
    got=$("$CUTAP" report --format csv "$d" 2>/dev/null | sed -n 's/^driver,cuCtxSynchronize,'$n',0,[0-9]*,[0-9]*,1000,[0-9]*,\([0-9]*\),.*/\1/p')
    [ -n "$got" ] || { say "  n=$n: no row"; "$CUTAP" report --format csv "$d" >&2; exit 1; }
    if [ $n -le 4096 ]; then [ "$got" = "$want" ] || { say "  n=$n: median $got, exact $want"; exit 1; }
    else [ $(( (got > want ? got - want : want - got) * 256 )) -le "$want" ] || { say "  n=$n: median $got, true $want"; exit 1; }; fi
    say "  $n calls: median $got (true $want)"
done
