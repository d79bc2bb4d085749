"""torchrun workload (one process per GPU, NCCL): an all-reduce of a rank
dependent tensor and three DistributedDataParallel steps of a small model.
Each rank prints its own lines prefixed with its rank; compare the sorted
output. Run: torchrun --nproc_per_node=2 ddp_allreduce.py"""
import os
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def say(line):
    # One write per line, flushed: the ranks share stdout.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    rank = int(os.environ["RANK"])
    local = int(os.environ["LOCAL_RANK"])
    world = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    t = torch.arange(1 << 16, dtype=torch.float32, device=dev) * (rank + 1)
    dist.all_reduce(t)
    expect = world * (world + 1) / 2
    ok = bool(torch.equal(t, torch.arange(1 << 16, dtype=torch.float32, device=dev) * expect))
    say("rank %d world %d allreduce correct: %s" % (rank, world, "yes" if ok else "no"))
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 4).to(dev), device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(rank)
    for step in range(3):
        x = torch.randn(8, 16, generator=g).to(dev)
        opt.zero_grad(set_to_none=True)
        F.mse_loss(model(x), torch.zeros(8, 4, device=dev)).backward()
        opt.step()
    w = float(model.module.weight.double().sum().item())
    # The same weights on every rank after DDP's gradient all-reduce.
    ws = torch.tensor([w], dtype=torch.float64, device=dev)
    dist.all_reduce(ws)
    same = abs(ws.item() - world * w) < 1e-9 * max(1.0, abs(w))
    say("rank %d ddp weights equal on all ranks: %s" % (rank, "yes" if same else "no"))
    dist.destroy_process_group()
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
