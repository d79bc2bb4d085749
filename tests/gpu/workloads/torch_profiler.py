"""PyTorch's profiler (Kineto, a CUPTI client) around a small training
step: prints how many CUDA runtime events of each name it recorded (the
names it saw, sorted, with their counts: deterministic for this step),
then "OK". Run under cutap, the profiler's counts must not change (issue
#25). "NOGPU" without a GPU."""
import collections

import torch
from torch.profiler import ProfilerActivity, profile


def main():
    if not torch.cuda.is_available():
        print("NOGPU")
        return
    torch.manual_seed(0)
    dev = "cuda"
    net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn(32, 64, device=dev)
    y = torch.randint(0, 10, (32,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()

    step()   # warm-up outside the profiler
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            step()
        torch.cuda.synchronize()
    counts = collections.Counter(e.name for e in prof.events() if e.name.startswith("cuda"))
    for name in sorted(counts):
        print("profiler", name, counts[name])
    print("OK")


if __name__ == "__main__":
    main()
