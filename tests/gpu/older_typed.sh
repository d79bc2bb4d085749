#!/usr/bin/env bash
# Issue #28 on the GPU: programs of CUDA 11.8's and 12.4's runtimes
# (build/rtold/, carried: tests/gpu/workloads/build_rtold.sh builds them on
# the development machine), each with its shared libcudart and statically,
# under plain `cutap trace`: output and status against the bare run, and
# per workload a line of tests/gpu/older_typed.py (runtime calls typed and
# untyped, those untyped although that major's headers declare them, the
# changed functions as decoded).
#   tests/gpu/older_typed.sh [WORKLOAD...]
set -u
cd "$(dirname "$0")/../.."
C=build/cutap
[ -x $C ] || { echo "no $C: run make"; exit 1; }
R=$(mktemp -d /tmp/cutap-older.XXXXXX)
trap 'rm -rf "$R"' EXIT
ORDER=${*:-rt118t_shared rt124t_shared rt118_shared rt124_shared rt118t_static rt124t_static}
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
for n in $ORDER; do
  p=build/rtold/$n
  [ -x $p ] || { echo "$n: not built (tests/gpu/workloads/build_rtold.sh)"; continue; }
  timeout 120 $p >"$R/$n.bare" 2>&1; brc=$?
  timeout 120 $C trace -o "$R/$n.tr" -- $p >"$R/$n.out" 2>"$R/$n.err"; trc=$?
  same=no; [ $brc = $trc ] && cmp -s "$R/$n.bare" <(grep -v '^cutap' "$R/$n.out") && same=yes
  echo "$n: status bare $brc trace $trc, output same: $same ($(head -1 "$R/$n.bare"))"
  $C export --format jsonl -o "$R/$n.jsonl" "$R/$n.tr" 2>/dev/null
  $C dump "$R/$n.tr" >"$R/$n.dump" 2>/dev/null
  python3 tests/gpu/older_typed.py $n "$R/$n.jsonl" "$R/$n.dump"
done
