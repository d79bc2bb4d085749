"""PyTorch CUDA graphs: a whole training step (forward, backward, SGD with
momentum) captured once with torch.cuda.graph and replayed on new data
copied into the static input. Deterministic: data and weights come from the
CPU generator, deterministic algorithms, TF32 off. Prints one loss per
replay (%.6f) and a checksum of the weights, then "OK"."""
import os
import sys

os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(0)
    dev = torch.device("cuda", 0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batches = [(torch.randn(128, 64), torch.randint(0, 10, (128,))) for _ in range(8)]
    sx = batches[0][0].to(dev)
    sy = batches[0][1].to(dev)
    # Warm up on a side stream, as torch.cuda.graph requires.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(sx), sy).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        sloss = F.cross_entropy(model(sx), sy)
        sloss.backward()
        opt.step()
    for i, (x, y) in enumerate(batches):
        sx.copy_(x)
        sy.copy_(y)
        g.replay()
        print("replay %d loss %.6f" % (i, sloss.item()))
    w = sum(float(p.double().sum().item()) for p in model.parameters())
    print("weights checksum %.6f" % w)
    print("OK")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as exc:
        print("ERROR: %s: %s" % (type(exc).__name__, exc))
        sys.exit(1)
