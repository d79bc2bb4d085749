"""PyTorch workload: a few training steps of an MLP (cuBLAS) and a small CNN
(cuDNN convolutions) with forward, backward and optimizer steps on the GPU.

All randomness comes from torch.manual_seed(0) on the CPU, and deterministic
algorithms are forced, so the printed losses are bitwise reproducible run to
run on the same GPU and software stack. Prints losses with %.6f, then "OK".
Exits non-zero (with the exception printed) on any failure.
"""
import os
import sys

# Must be set before cuBLAS initialises (i.e. before importing torch) for
# deterministic cuBLAS workspaces under use_deterministic_algorithms(True).
os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

STEPS = 5


def setup():
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    # TF32 is off so results do not hinge on tensor-core rounding choices.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(0)


def train(name, model, opt, x, y, loss_fn):
    for step in range(STEPS):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        # .item() synchronises, so any asynchronous CUDA error surfaces here.
        print("%s step %d loss %.6f" % (name, step, loss.item()))


def main():
    if not torch.cuda.is_available():
        print("CUDA not available")
        return 1
    setup()
    dev = torch.device("cuda", 0)
    print("cudnn available: %s" % ("yes" if torch.backends.cudnn.is_available() else "no"))

    # Models and data are created on the CPU generator, then moved, so the
    # values do not depend on the GPU's RNG.
    mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    xm = torch.randn(256, 64).to(dev)
    ym = torch.randint(0, 10, (256,)).to(dev)
    train("mlp", mlp, torch.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9),
          xm, ym, F.cross_entropy)

    cnn = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
        # No AdaptiveAvgPool2d: its CUDA backward is nondeterministic and
        # raises under use_deterministic_algorithms(True).
        nn.Flatten(), nn.Linear(16 * 8 * 8, 10),
    ).to(dev)
    xc = torch.randn(32, 3, 16, 16).to(dev)
    yc = torch.randint(0, 10, (32,)).to(dev)
    train("cnn", cnn, torch.optim.Adam(cnn.parameters(), lr=1e-3), xc, yc, F.cross_entropy)

    torch.cuda.synchronize()
    print("OK")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as exc:  # report any CUDA/cuDNN error and fail
        print("ERROR: %s: %s" % (type(exc).__name__, exc))
        sys.exit(1)
