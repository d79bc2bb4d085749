#!/usr/bin/env bash
# A trace directory whose name is too long (absolute, or relative
# under a deep working directory, where it cannot be made absolute)
# and a bad CUTAP_STAT_TIMING, given to the library directly (cutap
# trace and cutap stat refuse them before the command starts): the
# program's output and stderr are the bare run's, nothing recorded
# into a wrong place (was a warning on the program's stderr, and a
# relative directory followed the program's chdir).
. "$(dirname "$0")/../../lib/init.sh"

times() { local s; s=$(printf '%*s' "$2" ''); printf '%s' "${s// /$1}"; }   # times CHAR N
long=/tmp/$(times x 5000)
UNDER="CUTAP_TRACE=$long LD_PRELOAD=$LIB" bare_same bs1 $T/t_record many 300 || exit 1
UNDER="CUTAP_COUNT=$long LD_PRELOAD=$LIB" bare_same bs2 $T/t_record many 300 || exit 1
d200=$(times d 200) r200=$(times r 200)
deep=$WORK/$d200/$d200/$d200
rel=$r200; for i in $(seq 18); do rel=$rel/$r200; done
mkdir -p "$deep" || exit 1
(cd "$deep" && UNDER="CUTAP_TRACE=$rel LD_PRELOAD=$LIB" bare_same bs3 $T/t_record many 300) || exit 1
[ ! -e "$deep/${rel%%/*}" ] || { say "  a relative directory was made"; exit 1; }
UNDER="CUTAP_COUNT=$WORK/bs4 CUTAP_STAT_TIMING=bogus LD_PRELOAD=$LIB" bare_same bs4 $T/t_record many 300 || exit 1
