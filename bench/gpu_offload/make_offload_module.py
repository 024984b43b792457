"""Writes mlp_offload.hlo: a 6-layer tanh MLP forward pass and its backward
pass (activation gradients), as JAX lowers it, with the forward activations
annotated for host offloading the way JAX marks `jax.device_put(x,
memory_kind="pinned_host")` on a GPU: an `annotate_device_placement`
custom-call placing each activation in pinned host memory after the forward
layer that makes it, and one placing it back on the device before the
backward layer that reads it. (JAX's CPU lowering drops those annotations,
so they are added here, exactly where a GPU lowering puts them.)

Usage: /path/to/python-with-jax make_offload_module.py > tests/gpu/mlp_offload.hlo
"""
import re
import sys

import jax
import jax.numpy as jnp

LAYERS = 6
BATCH, WIDTH = 256, 512


def mlp_forward_backward(x, weights):
    # Pre-activations scaled by 1/WIDTH keep tanh out of saturation, so the
    # result is well conditioned for --check. The backward pass uses each
    # activation only after the gradient reaches its layer (g - (g * a) * a,
    # not g * (1 - a * a)), so nothing forces it onto the device earlier.
    activations = []
    h = x
    for w in weights:
        h = jnp.tanh((h @ w) * (1.0 / WIDTH))
        activations.append(h)
    g = jnp.ones_like(h)
    for a, w in zip(reversed(activations), reversed(weights)):
        g = ((g - (g * a) * a) @ w.T) * (1.0 / WIDTH)
    return g


def main():
    x = jnp.ones((BATCH, WIDTH), jnp.float32)
    weights = [jnp.ones((WIDTH, WIDTH), jnp.float32) for _ in range(LAYERS)]
    text = jax.jit(mlp_forward_backward).lower(x, weights).as_text(dialect="hlo")
    lines = text.splitlines()
    out = []
    tanh_names = []
    for line in lines:
        out.append(line)
        m = re.match(r"\s*(tanh\.\d+) = (f32\[[^\]]*\]\{[^}]*\}) tanh\(", line)
        if m:
            name, shape = m.groups()
            tanh_names.append(name)
            out.append(f'  {name}.host = {shape} custom-call({name}), custom_call_target="annotate_device_placement", '
                       f'frontend_attributes={{_xla_buffer_placement="pinned_host"}}')
    # The backward pass reads activation a in two multiplies (g * a, then
    # (g * a) * a): bring it back from the host before the first.
    result = []
    back = set()
    for line in out:
        m = re.match(r"\s*([\w.]+) = (f32\[[^\]]*\]\{[^}]*\}) multiply\(([\w.]+), ([\w.]+)\)", line)
        if m:
            _, shape, lhs, rhs = m.groups()
            for act in (lhs, rhs):
                if act in tanh_names:
                    if act not in back:
                        back.add(act)
                        result.append(f'  {act}.back = {shape} custom-call({act}.host), '
                                      f'custom_call_target="annotate_device_placement", '
                                      f'frontend_attributes={{_xla_buffer_placement="device"}}')
                    line = re.sub(rf"\b{re.escape(act)}\b(?=[,)])", f"{act}.back", line)
        result.append(line)
    sys.stdout.write("\n".join(result) + "\n")


if __name__ == "__main__":
    main()
