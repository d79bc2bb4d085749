"""JAX: a jitted MLP forward and gradient on the GPU (XLA's runtime copies,
issue #14). Prints "OK" when JAX runs on the GPU, "NOGPU" otherwise."""
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def main():
    if jax.default_backend() != "gpu":
        print("NOGPU")
        return
    k = jax.random.PRNGKey(0)
    w1 = jax.random.normal(k, (64, 128))
    w2 = jax.random.normal(k, (128, 10))
    x = jax.random.normal(k, (256, 64))

    @jax.jit
    def loss(w1, w2, x):
        return jnp.mean(jnp.square(jnp.tanh(x @ w1) @ w2))

    g = jax.jit(jax.grad(loss, argnums=(0, 1)))
    for _ in range(5):
        l = loss(w1, w2, x)
        gw1, gw2 = g(w1, w2, x)
        w1 = w1 - 0.01 * gw1
        w2 = w2 - 0.01 * gw2
    l.block_until_ready()
    print("OK")


if __name__ == "__main__":
    main()
