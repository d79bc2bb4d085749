#!/usr/bin/env bash
# A first look at the ioctl layer on a real driver (issue #15): builds,
# traces two workloads, prints the ioctl reports and the first decoded
# requests. Outputs to $OUT (or /tmp).   tests/gpu/smoke_ioctl.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp}
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
make -j16 all >"$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
tests/gpu/build.sh >>"$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
C=build/cutap
run_one() {
  local n=$1; shift
  rm -rf /tmp/io
  "$@" >/tmp/bare.out 2>/tmp/bare.err
  $C trace -o /tmp/io -- "$@" >/tmp/tr.out 2>/tmp/tr.err
  echo "== $n rc=$? output_same=$(cmp -s /tmp/bare.out /tmp/tr.out && echo yes || echo no)"
  tail -2 /tmp/tr.err
  $C report -e layer=ioctl /tmp/io | head -30
  $C report -e layer=ioctl --requests /tmp/io | head -25
  $C report --tree /tmp/io | grep -E 'RM_|UVM_|mmap|open|NV_ESC' | head -15
  $C dump /tmp/io | grep -E ' (RM_|UVM_|CARD|CHECK|open\(|mmap\(|NV_ESC|ioctl\()' | head -25 | cut -c1-300
  $C dump /tmp/io >"$OUT/dump_$n.txt"
}
run_one vecadd_shared build/gpu/vecadd_shared
run_one torch_step python3 tests/gpu/workloads/torch_step.py
