#!/usr/bin/env bash
# `cutap trace --gpu` with CUPTIs older than 13.0 on the device machine
# (issue #31): the program of tests/gpu/workloads/gpu_activity.cu built
# against CUDA 11.8's runtime (static and shared) and against 12.4's
# (shared), each run with CUPTI 11.8, 12.4 and the host's 13.0
# (CUTAP_CUPTI_LIB). Per pair: output as bare, every kernel, copy and
# memset counted and joined to its launching call (gpu_check.py --expect),
# how the calls were joined (header bits: 0x40 callbacks, 0x80 external
# ids, 0x100 calls of functions this CUPTI does not know) and what cutap
# said about refused callback ids (CUTAP_DEBUG).
#
# build/oldcupti/ comes from the development machine (about 16 MiB,
# carried; tests/gpu/workloads/build_oldcupti.sh builds it).
#   tests/gpu/older_cupti.sh [N rounds, default 50]
set -u
cd "$(dirname "$0")/../.."
O=build/oldcupti C=build/cutap N=${1:-50}
[ -x $C ] || { echo "no $C: run make"; exit 1; }
[ -x $O/ga118_static ] || { echo "no $O: tests/gpu/workloads/build_oldcupti.sh"; exit 1; }
T=$(mktemp -d /tmp/cutap-oldcupti.XXXXXX)
trap 'rm -rf "$T"' EXIT
CUPTI13=$(ls /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 2>/dev/null | head -1)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
BAD=0
printf '%-14s %-6s %-6s %-8s %-22s %s\n' program cupti output gpu counts joined
for pair in "ga118_static 11.8" "ga118_shared 11.8" "ga124_shared 12" "ga118_shared 12" "ga124_shared 13" \
            "ga118_static 13"; do
  set -- $pair
  p=$O/$1 lib=$O/libcupti.so.$2
  [ "$2" = 13 ] && lib=$CUPTI13
  d=$T/$1_$2
  bare=$(timeout 120 $p $N 2>&1)
  got=$(CUTAP_DEBUG=1 CUTAP_CUPTI_LIB=$lib timeout 120 $C trace --gpu -o $d -- $p $N 2>$d.err)
  same=no; [ "$got" = "$bare" ] && same=yes || BAD=1
  python3 tests/gpu/gpu_check.py $d --expect "scale=$((3 * N)) add_one=$((2 * N)) memcpy=$((3 * N)) memset=$((2 * N))" \
    >$d.check; crc=$?
  [ $crc = 0 ] || BAD=1
  bits=$(grep -o 'gpu=0x[0-9a-f]*' $d.check | head -1)
  counts=$(grep -m1 'kernels [0-9]*, memcpy' $d.check | sed 's/^ *//; s/, correlations.*//')
  joined=$(grep -m1 'joined to their' $d.check | sed 's/.*call: //')
  printf '%-14s %-6s %-6s %-8s %-22s %s%s\n' $1 $2 $same "${bits#gpu=}" "$counts" "$joined" \
    "$([ $crc = 0 ] || echo '  MISMATCH')"
  grep -h 'refused\|CUPTI (' $d.err | sed 's/^/    /' | head -3
  [ $crc = 0 ] || { grep MISMATCH $d.check | head -3; tail -5 $d.err; }
  [ "$same" = yes ] || { echo "    bare: $(echo "$bare" | tail -1)"; echo "    got:  $(echo "$got" | tail -1)"; }
done
echo "older CUPTIs: $([ $BAD = 0 ] && echo PASSED || echo FAILED)"
exit $BAD
