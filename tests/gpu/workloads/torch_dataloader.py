"""PyTorch DataLoader with 2 worker processes (forked) and pinned memory:
batches built on the CPU in the workers, copied to the GPU without
blocking, a small model trained on them. Deterministic: each sample is a
function of its index, shuffle off, deterministic algorithms. Prints one
loss per batch (%.6f), then "OK"."""
import os
import sys

os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402


class Samples(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(32, generator=g), i % 10


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(0)
    dev = torch.device("cuda", 0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(Samples(), batch_size=32, num_workers=2, pin_memory=True,
                        multiprocessing_context="fork")
    for i, (x, y) in enumerate(loader):
        x = x.to(dev, non_blocking=True)
        y = y.to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print("batch %d loss %.6f" % (i, loss.item()))
    print("OK")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as exc:
        print("ERROR: %s: %s" % (type(exc).__name__, exc))
        sys.exit(1)
