"""PyTorch training steps per second (bench/gpu/run.sh runs it bare and
under cutap, alternately).

    torch_steps.py [STEPS [WIDTH [BATCH]]]

An MLP of 4 Linear layers of WIDTH (default 512), batch BATCH (default
256), SGD with momentum. By default a step is a few dozen small kernels
and about 520 driver calls in ~1 ms, so the CPU, not the GPU, sets the
pace: the case where an interposer shows most. WIDTH 2048, BATCH 1024
makes the GPU set the pace, as in most real training. 100 warm-up steps, then 7 windows of STEPS steps
(default 300), each ending with a synchronisation. Prints the fastest
window as "steps_per_s <v>": the window least disturbed by the rest of
the machine (the spread between processes of the same mode was ~10 %)."""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    w = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    dev = torch.device("cuda", 0)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(w, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(),
                          nn.Linear(w, w), nn.ReLU(), nn.Linear(w, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, w, device=dev)
    y = torch.randint(0, 10, (batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(100):
        step()
    torch.cuda.synchronize()
    rates = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        rates.append(steps / (time.perf_counter() - t))
    print("steps_per_s %.1f" % max(rates))


if __name__ == "__main__":
    main()
