"""PyTorch torch.compile (Inductor, Triton kernels) of a small MLP step:
runtime calls from libtorch_cuda's and Triton's launchers. Prints "OK"."""
import torch  # noqa: E402


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda", 0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 10)).to(dev)
    step = torch.compile(lambda x: model(x).square().mean())
    x = torch.randn(256, 64, device=dev)
    for _ in range(5):
        loss = step(x)
        loss.backward()
    torch.cuda.synchronize()
    print("OK")


if __name__ == "__main__":
    main()
