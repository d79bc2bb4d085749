#!/usr/bin/env bash
# The README followed as a new user would, on the GPU machine: a copy of
# the files as they came, without build/ and .git (not a git checkout:
# untracked files come along), `make demo`, then a PyTorch script traced,
# reported, dumped and exported for Perfetto. Prints what a user would see
# (heads of each output) and the time each step took; exits 1 when a step
# failed.
set -u
cd "$(dirname "$0")/../.."
F=$(mktemp -d /tmp/cutap-fresh.XXXXXX)
# The files as they came (the machine's copy may carry a stale .git).
find . -path ./build -prune -o -path ./.git -prune -o -type f -print | tar cf - -T - | tar xf - -C "$F"
cd "$F"
FAILED=$F.failed
step() {
  local t=$(date +%s%N); echo "\$ $*"; "$@"; local rc=$?
  echo "[rc $rc, $(( ($(date +%s%N) - t) / 1000000 )) ms]"
  [ $rc = 0 ] || echo "$*" >>"$FAILED"
}
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
step sh -c 'build/cutap report run1 >report.txt' && head -14 report.txt
step sh -c 'build/cutap dump run1 >dump.txt' && grep -m 3 ' cuLaunchKernel(' dump.txt
step build/cutap export --format perfetto -o run1.json run1
step python3 -c "import json; d=json.load(open('run1.json')); e=d['traceEvents']; print('perfetto events:', sum(1 for x in e if x.get('ph')=='X'), 'threads:', len({(x['pid'], x.get('tid')) for x in e if x.get('ph')=='X'}))"
step build/cutap stat -- python3 train.py 2>&1 | tail -6
ls -la run1 run1.json | head
rm -rf "$F"
[ -s "$FAILED" ] && { echo "FAILED steps:"; cat "$FAILED"; rm -f "$FAILED"; exit 1; }
echo "all steps passed"
