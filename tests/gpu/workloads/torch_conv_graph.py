"""PyTorch: cuDNN convolutions (forward and backward) and a CUDA graph of
the forward pass, the case of issue #14 (runtime calls made by the
runtime copies inside cuDNN and libtorch_cuda). Prints the losses (%.3f)
and "OK"."""
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def main():
    torch.backends.cudnn.benchmark = False
    torch.manual_seed(0)
    dev = torch.device("cuda", 0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 8, 3, padding=1), nn.ReLU(),
                          nn.Flatten(), nn.Linear(8 * 16 * 16, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 3, 16, 16).to(dev)
    y = torch.randint(0, 10, (32,)).to(dev)
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print("%.3f" % loss.item())
    model.eval()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):
        out = model(x)
    for _ in range(4):
        g.replay()
    torch.cuda.synchronize()
    print("graph %s" % ("yes" if out.shape == (32, 10) else "no"))
    print("OK")


if __name__ == "__main__":
    main()
