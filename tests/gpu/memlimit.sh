#!/usr/bin/env bash
# Issue #29 on the device machine: examples/memlimit under PyTorch.
#   tests/gpu/memlimit.sh
# 1. a cap of 2 GiB on device 0: torch.cuda.mem_get_info() reports 2 GiB
#    total; 256 MiB tensors are allocated until torch.OutOfMemoryError,
#    which must come with 1.75 to 2 GiB held (8 tensors fit exactly); the same
#    program without the plugin allocates 3 GiB (the cap, not the GPU,
#    stopped it);
# 2. nvidia-smi under the limiter (same name) reports the cap as total;
# 3. two processes of one CUTAP_MEMLIMIT_NAME: one holds 1.5 GiB, the
#    other is refused 1 GiB (torch.OutOfMemoryError) after at most 512 MiB.
set -u
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
make -s -j"$(nproc)" lib build/examples/memlimit.so >/dev/null || exit 1
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
R=$(mktemp -d /tmp/cutap-memlimit.XXXXXX)
export CUTAP_MEMLIMIT_NAME=gpu$$
trap 'rm -rf "$R" /dev/shm/cutap-memlimit.$CUTAP_MEMLIMIT_NAME' EXIT
cat >"$R/fill.py" <<'PY'
import sys, time, torch
MiB = 1 << 20
free, total = torch.cuda.mem_get_info(0)
print("mem_get_info total %d MiB free %d MiB" % (total // MiB, free // MiB), flush=True)
limit = int(sys.argv[1]) * MiB
held = []
try:
    while sum(t.numel() for t in held) < limit:
        held.append(torch.empty(256 * MiB, dtype=torch.uint8, device="cuda"))
    print("held %d MiB, no OutOfMemoryError" % (sum(t.numel() for t in held) // MiB), flush=True)
except torch.OutOfMemoryError:
    print("OutOfMemoryError after %d MiB" % (sum(t.numel() for t in held) // MiB), flush=True)
if len(sys.argv) > 2:
    time.sleep(float(sys.argv[2]))
PY
P="+$PWD/build/examples/memlimit.so"
ok=1
echo "-- bare: 3 GiB"
python3 "$R/fill.py" 3072 || ok=0
echo "-- CUTAP_MEMLIMIT=0:2G, 3 GiB asked"
out=$(CUTAP_PLUGINS=$P CUTAP_MEMLIMIT=0:2G LD_PRELOAD=$PWD/build/libcutap.so python3 "$R/fill.py" 3072 2>&1); echo "$out"
echo "$out" | grep -q '^mem_get_info total 2048 MiB' || { echo "mem_get_info: not the cap"; ok=0; }
n=$(echo "$out" | sed -n 's/^OutOfMemoryError after \([0-9]*\) MiB/\1/p')
[ -n "$n" ] && [ "$n" -ge 1792 ] && [ "$n" -le 2048 ] || { echo "OutOfMemoryError not after 1.75 to 2 GiB"; ok=0; }
echo "-- nvidia-smi under the limiter"
CUTAP_PLUGINS=$P CUTAP_MEMLIMIT=0:2G LD_PRELOAD=$PWD/build/libcutap.so nvidia-smi --query-gpu=memory.total,memory.used --format=csv,noheader -i 0 2>&1 | tee "$R/smi"
grep -q '^2048 MiB' "$R/smi" || { echo "nvidia-smi: not the cap"; ok=0; }
echo "-- two processes, one cap of 2 GiB: one holds 1.5 GiB"
CUTAP_PLUGINS=$P CUTAP_MEMLIMIT=0:2G LD_PRELOAD=$PWD/build/libcutap.so python3 "$R/fill.py" 1536 20 >"$R/a" 2>&1 &
a=$!
for _ in $(seq 200); do grep -q '^held' "$R/a" && break; sleep 0.1; done
cat "$R/a"
out=$(CUTAP_PLUGINS=$P CUTAP_MEMLIMIT=0:2G LD_PRELOAD=$PWD/build/libcutap.so python3 "$R/fill.py" 1024 2>&1); echo "$out"
echo "$out" | grep -q '^OutOfMemoryError after [0-9]* MiB' || { echo "the second process was not refused"; ok=0; }
n=$(echo "$out" | sed -n 's/^OutOfMemoryError after \([0-9]*\) MiB/\1/p')
[ -n "$n" ] && [ "$n" -le 512 ] || { echo "the second process got more than 512 MiB beside 1.5 GiB"; ok=0; }
kill $a 2>/dev/null; wait $a 2>/dev/null
[ $ok = 1 ] && echo "memlimit: PASSED" || echo "memlimit: FAILED"
