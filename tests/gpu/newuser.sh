#!/usr/bin/env bash
# The README followed as a new user would, on the GPU machine: a fresh copy
# of the tracked files (no build/), `make demo`, then a PyTorch script
# traced, reported, dumped and exported for Perfetto. Prints what a user
# would see (heads of each output) and the time each step took.
set -u
cd "$(dirname "$0")/../.."
F=$(mktemp -d /tmp/cutap-fresh.XXXXXX)
# The files as they came (the machine's copy may carry a stale .git).
find . -path ./build -prune -o -path ./.git -prune -o -type f -print | tar cf - -T - | tar xf - -C "$F"
cd "$F"
step() { local t=$(date +%s%N); echo "\$ $*"; "$@"; local rc=$?; echo "[rc $rc, $(( ($(date +%s%N) - t) / 1000000 )) ms]"; }
step make demo 2>&1 | tail -12
cat >train.py <<'PY'
import torch
x = torch.randn(64, 128, device="cuda")
m = torch.nn.Linear(128, 10).cuda()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad(); m(x).sum().backward(); opt.step()
torch.cuda.synchronize(); print("done")
PY
step build/cutap trace -o run1 -- python3 train.py
step build/cutap report run1 | head -14
step build/cutap dump run1 | grep -m 3 'cuLaunchKernel'
step build/cutap export --format perfetto -o run1.json run1
python3 -c "import json; d=json.load(open('run1.json')); e=d['traceEvents']; print('perfetto events:', sum(1 for x in e if x.get('ph')=='X'), 'threads:', len({(x['pid'], x.get('tid')) for x in e if x.get('ph')=='X'}))"
step build/cutap stat -- python3 train.py 2>&1 | tail -6
ls -la run1 run1.json | head
rm -rf "$F"
