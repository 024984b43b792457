#!/usr/bin/env python3
"""Generate the real-JAX HLO corpus under tests/corpus/.

Each program is a small jitted JAX function (mostly training steps). For every
program this script starts a fresh Python subprocess with

    XLA_FLAGS="--xla_dump_to=<tmpdir> --xla_dump_hlo_as_text"

(XLA reads XLA_FLAGS once, at process start), lowers and compiles the function
once with jax.jit(...).lower(*args).compile(), runs that compiled object on
seeded inputs and writes into <out>/<program>/:

  * the raw XLA dumps of that one module, byte-for-byte:
      module_NNNN.jit_<fn>.before_optimizations.txt
      module_NNNN.jit_<fn>.cpu_after_optimizations.txt
      module_NNNN.jit_<fn>.cpu_after_optimizations-buffer-assignment.txt (if small)
  * memory_analysis.json   compiled.memory_analysis() of that same compilation
  * input_<i>.npy          flattened argument leaves (= entry parameter order)
  * output_<i>.npy         flattened result leaves (= entry ROOT tuple order)
  * manifest.json

JAX is NOT a test dependency: run this by hand and commit its output.

    .venv-jax/bin/python bench/jax_corpus/generate.py --out tests/corpus
    .venv-jax/bin/python bench/jax_corpus/generate.py --out tests/corpus --only cond
"""

import argparse
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SEED = 20240601
BUFFER_ASSIGNMENT_MAX_BYTES = 256 * 1024

# name -> (description, builder function name). Order is the table order.
PROGRAMS = {}
# The same for the real-size programs of real_size.py (benchmarks only).
REAL_SIZE_PROGRAMS = {}


def program(name, description, table=PROGRAMS):
    def deco(fn):
        table[name] = (description, fn)
        return fn
    return deco


def real_size_programs():
    """The programs of real_size.py. It registers them into the table of the
    module named `generate`, which is not this one when this file runs as a
    script."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import real_size
    return real_size.REAL_SIZE_PROGRAMS


def all_programs():
    """Committed and real-size programs: name -> (description, builder)."""
    return {**PROGRAMS, **real_size_programs()}


# ---------------------------------------------------------------------------
# Program builders. Each returns a dict:
#   fn:        the Python function to jit (its __name__ names the dump files)
#   args:      tuple of pytrees of numpy arrays
#   jit_kwargs: extra jax.jit kwargs (donate_argnums, shardings, ...)
#   place:     optional callable(args) -> args put on their devices/memories
#   check:     optional list of substrings the dumps must contain
# Builders import jax lazily so the parent process never initialises XLA.
# ---------------------------------------------------------------------------


def _rng():
    import numpy as np
    return np.random.default_rng(SEED)


def _normal(rng, shape, scale=1.0):
    import numpy as np
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _xent(logits, labels):
    import jax
    import jax.numpy as jnp
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))


@program("mlp_sgd", "MLP (32-64-64-10) training step: forward, softmax "
         "cross-entropy, grad, SGD update; params donated")
def build_mlp_sgd():
    return mlp_step_spec([32, 64, 64, 10], 16, "mlp_sgd_step")


def mlp_step_spec(dims, batch, name):
    """An MLP training step (relu between layers, softmax cross-entropy, SGD)
    on `dims` with a batch of `batch`; the jitted function is named `name`."""
    import jax
    import numpy as np
    rng = _rng()
    params = [{"w": _normal(rng, (a, b), 1 / np.sqrt(a)),
               "b": np.zeros((b,), np.float32)}
              for a, b in zip(dims[:-1], dims[1:])]
    x = _normal(rng, (batch, dims[0]))
    y = rng.integers(0, dims[-1], (batch,)).astype(np.int32)

    def loss_fn(params, x, y):
        h = x
        for i, p in enumerate(params):
            h = h @ p["w"] + p["b"]
            if i + 1 < len(params):
                h = jax.nn.relu(h)
        return _xent(h, y)

    def step(params, x, y):
        loss, g = jax.value_and_grad(loss_fn)(params, x, y)
        params = jax.tree.map(lambda p, d: p - 0.1 * d, params, g)
        return params, loss
    step.__name__ = name

    return dict(fn=step, args=(params, x, y),
                jit_kwargs=dict(donate_argnums=(0,)))


# --- transformer pieces ----------------------------------------------------
T_VOCAB, T_D, T_HEADS, T_FF, T_SEQ, T_BATCH, T_LAYERS = 64, 32, 4, 64, 16, 2, 2


def _layer_params(rng):
    import numpy as np
    d, f = T_D, T_FF
    return {
        "ln1_g": np.ones((d,), np.float32), "ln1_b": np.zeros((d,), np.float32),
        "wqkv": _normal(rng, (d, 3 * d), 1 / np.sqrt(d)),
        "wo": _normal(rng, (d, d), 1 / np.sqrt(d)),
        "ln2_g": np.ones((d,), np.float32), "ln2_b": np.zeros((d,), np.float32),
        "w1": _normal(rng, (d, f), 1 / np.sqrt(d)),
        "b1": np.zeros((f,), np.float32),
        "w2": _normal(rng, (f, d), 1 / np.sqrt(f)),
        "b2": np.zeros((d,), np.float32),
    }


def _layernorm(x, g, b, eps=1e-5):
    import jax.numpy as jnp
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
    return (x - mu) * (1.0 / jnp.sqrt(var + eps)) * g + b


def _layer(p, x):
    import jax
    import jax.numpy as jnp
    bsz, s, d = x.shape
    h = _layernorm(x, p["ln1_g"], p["ln1_b"])
    qkv = h @ p["wqkv"]
    q, k, v = jnp.split(qkv, 3, axis=-1)
    dh = d // T_HEADS

    def heads(t):
        return t.reshape(bsz, s, T_HEADS, dh).transpose(0, 2, 1, 3)
    q, k, v = heads(q), heads(k), heads(v)
    att = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(float(dh))
    mask = jnp.tril(jnp.ones((s, s), bool))
    att = jnp.where(mask, att, -1e9)
    att = jax.nn.softmax(att, axis=-1)
    o = jnp.einsum("bhqk,bhkd->bhqd", att, v)
    o = o.transpose(0, 2, 1, 3).reshape(bsz, s, d)
    x = x + o @ p["wo"]
    h = _layernorm(x, p["ln2_g"], p["ln2_b"])
    h = jax.nn.gelu(h @ p["w1"] + p["b1"])
    return x + h @ p["w2"] + p["b2"]


def _transformer_setup(mode):
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    layers = [_layer_params(rng) for _ in range(T_LAYERS)]
    if mode == "scan":
        layers = jax.tree.map(lambda *xs: np.stack(xs), *layers)
    params = {
        "embed": _normal(rng, (T_VOCAB, T_D), 0.02),
        "layers": layers,
        "lnf_g": np.ones((T_D,), np.float32),
        "lnf_b": np.zeros((T_D,), np.float32),
        "head": _normal(rng, (T_D, T_VOCAB), 1 / np.sqrt(T_D)),
    }
    zeros = jax.tree.map(np.zeros_like, params)
    opt = {"m": zeros, "v": jax.tree.map(np.zeros_like, params),
           "count": np.zeros((), np.int32)}
    tokens = rng.integers(0, T_VOCAB, (T_BATCH, T_SEQ)).astype(np.int32)
    targets = rng.integers(0, T_VOCAB, (T_BATCH, T_SEQ)).astype(np.int32)

    # "remat": jax.checkpoint saving nothing; "remat_dots": saving the
    # matmul results (the dots_saveable policy; bench/fit compares with it).
    layer_fn = {
        "remat": jax.checkpoint(_layer),
        "remat_dots": jax.checkpoint(
            _layer, policy=jax.checkpoint_policies.dots_saveable),
    }.get(mode, _layer)

    def loss_fn(params, tokens, targets):
        x = jnp.take(params["embed"], tokens, axis=0)
        if mode == "scan":
            def body(x, p):
                return _layer(p, x), None
            x, _ = jax.lax.scan(body, x, params["layers"])
        else:
            for p in params["layers"]:
                x = layer_fn(p, x)
        x = _layernorm(x, params["lnf_g"], params["lnf_b"])
        return _xent(x @ params["head"], targets)

    def step(params, opt, tokens, targets):
        loss, g = jax.value_and_grad(loss_fn)(params, tokens, targets)
        b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
        count = opt["count"] + 1
        m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, opt["m"], g)
        v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, opt["v"], g)
        c = count.astype(jnp.float32)
        mhat_s = 1.0 / (1 - b1 ** c)
        vhat_s = 1.0 / (1 - b2 ** c)
        params = jax.tree.map(
            lambda p, m, v: p - lr * (m * mhat_s) / (jnp.sqrt(v * vhat_s) + eps),
            params, m, v)
        return params, {"m": m, "v": v, "count": count}, loss

    return step, (params, opt, tokens, targets)


@program("transformer_adam", "2-layer transformer LM training step (causal "
         "attention + GELU MLP + layernorm, unrolled layers), hand-written "
         "Adam; params and optimizer state donated")
def build_transformer_adam():
    step, args = _transformer_setup("unrolled")

    def transformer_adam_step(*a):
        return step(*a)
    return dict(fn=transformer_adam_step, args=args,
                jit_kwargs=dict(donate_argnums=(0, 1)))


@program("transformer_scan", "Same transformer training step with the 2 "
         "layers stacked and run under lax.scan (while loop); Adam; donated")
def build_transformer_scan():
    step, args = _transformer_setup("scan")

    def transformer_scan_step(*a):
        return step(*a)
    return dict(fn=transformer_scan_step, args=args,
                jit_kwargs=dict(donate_argnums=(0, 1)))


@program("transformer_remat", "Same transformer training step with "
         "jax.checkpoint (remat) on each unrolled layer; Adam; donated")
def build_transformer_remat():
    step, args = _transformer_setup("remat")

    def transformer_remat_step(*a):
        return step(*a)
    return dict(fn=transformer_remat_step, args=args,
                jit_kwargs=dict(donate_argnums=(0, 1)))


def _conv(x, w):
    import jax
    return jax.lax.conv_general_dilated(
        x, w, window_strides=(1, 1), padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"))


@program("cnn_maxpool", "CNN training step: 2x (3x3 conv + relu + 2x2 "
         "max-pool via lax.reduce_window) + dense, SGD; the max-pool gradient "
         "is select-and-scatter; params donated")
def build_cnn_maxpool():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    params = {
        "c1": _normal(rng, (3, 3, 3, 8), 0.2), "c2": _normal(rng, (3, 3, 8, 16), 0.1),
        "w": _normal(rng, (4 * 4 * 16, 10), 0.05), "b": np.zeros((10,), np.float32),
    }
    x = _normal(rng, (8, 16, 16, 3))
    y = rng.integers(0, 10, (8,)).astype(np.int32)

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max,
                                     (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(p, x, y):
        h = pool(jax.nn.relu(_conv(x, p["c1"])))
        h = pool(jax.nn.relu(_conv(h, p["c2"])))
        h = h.reshape(h.shape[0], -1)
        return _xent(h @ p["w"] + p["b"], y)

    def cnn_maxpool_step(p, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return jax.tree.map(lambda a, d: a - 0.05 * d, p, g), loss

    return dict(fn=cnn_maxpool_step, args=(params, x, y),
                jit_kwargs=dict(donate_argnums=(0,)),
                check=["select-and-scatter"])


@program("embedding", "Embedding-bag training step: gather lookup (vocab "
         "128 x 16), mean pool, linear, cross-entropy; the embedding gradient "
         "is a scatter-add; params donated")
def build_embedding():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    params = {"emb": _normal(rng, (128, 16), 0.1),
              "w": _normal(rng, (16, 5), 0.25), "b": np.zeros((5,), np.float32)}
    ids = rng.integers(0, 128, (8, 12)).astype(np.int32)
    y = rng.integers(0, 5, (8,)).astype(np.int32)

    def loss_fn(p, ids, y):
        e = p["emb"][ids]                  # gather
        h = jnp.mean(e, axis=1)
        return _xent(h @ p["w"] + p["b"], y)

    def embedding_step(p, ids, y):
        loss, g = jax.value_and_grad(loss_fn)(p, ids, y)
        return jax.tree.map(lambda a, d: a - 0.5 * d, p, g), loss

    return dict(fn=embedding_step, args=(params, ids, y),
                jit_kwargs=dict(donate_argnums=(0,)),
                check=["gather(", "scatter("])


@program("layer_norm", "Layer norm (gamma/beta) + linear regression "
         "training step, MSE loss, SGD; params donated")
def build_layer_norm():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    params = {"g": np.ones((64,), np.float32), "b": np.zeros((64,), np.float32),
              "w": _normal(rng, (64, 8), 0.125)}
    x = _normal(rng, (16, 64), 2.0) + 1.0
    t = _normal(rng, (16, 8))

    def loss_fn(p, x, t):
        h = _layernorm(x, p["g"], p["b"])
        return jnp.mean(jnp.square(h @ p["w"] - t))

    def layer_norm_step(p, x, t):
        loss, g = jax.value_and_grad(loss_fn)(p, x, t)
        return jax.tree.map(lambda a, d: a - 0.1 * d, p, g), loss

    return dict(fn=layer_norm_step, args=(params, x, t),
                jit_kwargs=dict(donate_argnums=(0,)))


@program("batch_norm", "Conv + batch norm (batch statistics, running-stat "
         "update) + relu + global mean pool + dense training step; params "
         "and running stats donated")
def build_batch_norm():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    params = {"c": _normal(rng, (3, 3, 4, 8), 0.2),
              "gamma": np.ones((8,), np.float32), "beta": np.zeros((8,), np.float32),
              "w": _normal(rng, (8, 10), 0.3)}
    stats = {"mean": np.zeros((8,), np.float32), "var": np.ones((8,), np.float32)}
    x = _normal(rng, (8, 12, 12, 4))
    y = rng.integers(0, 10, (8,)).astype(np.int32)

    def loss_fn(p, x, y):
        h = _conv(x, p["c"])
        mu = jnp.mean(h, axis=(0, 1, 2))
        var = jnp.var(h, axis=(0, 1, 2))
        h = (h - mu) * jax.lax.rsqrt(var + 1e-5) * p["gamma"] + p["beta"]
        h = jnp.mean(jax.nn.relu(h), axis=(1, 2))
        return _xent(h @ p["w"], y), (mu, var)

    def batch_norm_step(p, stats, x, y):
        (loss, (mu, var)), g = jax.value_and_grad(loss_fn, has_aux=True)(p, x, y)
        p = jax.tree.map(lambda a, d: a - 0.1 * d, p, g)
        stats = {"mean": 0.9 * stats["mean"] + 0.1 * mu,
                 "var": 0.9 * stats["var"] + 0.1 * var}
        return p, stats, loss

    return dict(fn=batch_norm_step, args=(params, stats, x, y),
                jit_kwargs=dict(donate_argnums=(0, 1)))


@program("kv_decode", "One autoregressive decode step of a 2-layer "
         "attention stack with a KV cache [layers,batch,heads,32,8]: "
         "dynamic_update_slice of the new K/V at pos, masked attention; "
         "caches donated")
def build_kv_decode():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    L, B, H, T, Dh = 2, 2, 4, 32, 8
    D = H * Dh
    params = {"wqkv": _normal(rng, (L, D, 3 * D), 1 / np.sqrt(D)),
              "wo": _normal(rng, (L, D, D), 1 / np.sqrt(D))}
    k_cache = _normal(rng, (L, B, H, T, Dh))
    v_cache = _normal(rng, (L, B, H, T, Dh))
    x = _normal(rng, (B, D))
    pos = np.array(rng.integers(4, T - 1), np.int32)

    def kv_decode_step(params, k_cache, v_cache, x, pos):
        for l in range(L):
            qkv = x @ params["wqkv"][l]
            q, k, v = (t.reshape(B, H, 1, Dh) for t in jnp.split(qkv, 3, -1))
            k_cache = jax.lax.dynamic_update_slice(
                k_cache, k[None], (l, 0, 0, pos, 0))
            v_cache = jax.lax.dynamic_update_slice(
                v_cache, v[None], (l, 0, 0, pos, 0))
            att = jnp.einsum("bhqd,bhkd->bhqk", q, k_cache[l]) / np.sqrt(Dh)
            valid = jnp.arange(T) <= pos
            att = jax.nn.softmax(jnp.where(valid, att, -1e9), axis=-1)
            o = jnp.einsum("bhqk,bhkd->bhqd", att, v_cache[l]).reshape(B, D)
            x = x + o @ params["wo"][l]
        return x, k_cache, v_cache

    return dict(fn=kv_decode_step, args=(params, k_cache, v_cache, x, pos),
                jit_kwargs=dict(donate_argnums=(1, 2)),
                check=["dynamic-update-slice"])


@program("sort_topk", "jnp.sort, jnp.argsort and lax.top_k (k=8) over the "
         "rows of a [32,128] matrix")
def build_sort_topk():
    import jax
    import jax.numpy as jnp
    rng = _rng()
    x = _normal(rng, (32, 128))

    def sort_topk_step(x):
        vals, idx = jax.lax.top_k(x, 8)
        return jnp.sort(x, axis=-1), jnp.argsort(x, axis=0), vals, idx

    return dict(fn=sort_topk_step, args=(x,), check=["sort("])


@program("cond", "lax.cond on a runtime predicate choosing between a "
         "matmul+tanh branch and an elementwise sin*cos branch (HLO "
         "conditional), then a reduction")
def build_cond():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    x = _normal(rng, (16, 32))
    w = _normal(rng, (32, 32), 0.2)
    pred = np.array(True)

    def cond_step(pred, x, w):
        y = jax.lax.cond(pred,
                         lambda x, w: jnp.tanh(x @ w),
                         lambda x, w: jnp.sin(x) * jnp.cos(x),
                         x, w)
        return y, jnp.sum(y * y)

    return dict(fn=cond_step, args=(pred, x, w), check=["conditional("])


@program("switch", "lax.switch on a runtime int32 index over three "
         "branches (HLO conditional with branch_computations)")
def build_switch():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    x = _normal(rng, (16, 32))
    w = _normal(rng, (32, 32), 0.2)
    idx = np.array(1, np.int32)

    def switch_step(idx, x, w):
        return jax.lax.switch(idx, [lambda x, w: x @ w,
                                    lambda x, w: jnp.exp(-x * x),
                                    lambda x, w: jnp.maximum(x, 0.0) @ w.T],
                              x, w)

    return dict(fn=switch_step, args=(idx, x, w), check=["conditional("])


@program("host_offload", "memory_kind='pinned_host': one argument and one "
         "output live in pinned host memory (in/out_shardings), the host "
         "argument is brought to device with jax.device_put inside jit; "
         "XLA:CPU keeps the S(5) layouts in entry_computation_layout")
def build_host_offload():
    import jax
    import jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding
    rng = _rng()
    dev = jax.devices()[0]
    host = SingleDeviceSharding(dev, memory_kind="pinned_host")
    devm = SingleDeviceSharding(dev, memory_kind="device")
    x = _normal(rng, (16, 32))
    w = _normal(rng, (32, 32), 0.2)

    def host_offload_step(x, w_host):
        w = jax.device_put(w_host, devm)
        h = jnp.tanh(x @ w)
        h_host = jax.device_put(h, host)        # activation offloaded
        y = jnp.sin(h @ w)
        return jnp.sum(y), h_host

    def place(args):
        return (jax.device_put(args[0], devm), jax.device_put(args[1], host))

    return dict(fn=host_offload_step, args=(x, w),
                jit_kwargs=dict(in_shardings=(devm, host),
                                out_shardings=(devm, host)),
                place=place, check=["S(5)"])


@program("fori_loop", "lax.fori_loop (10 trips) of a normalised power "
         "iteration with a matmul in the body (HLO while)")
def build_fori_loop():
    import jax
    import jax.numpy as jnp
    rng = _rng()
    a = _normal(rng, (32, 32), 0.2)
    v = _normal(rng, (32,))

    def fori_loop_step(a, v):
        def body(i, v):
            v = a @ v
            return v / jnp.linalg.norm(v)
        v = jax.lax.fori_loop(0, 10, body, v)
        return v, v @ (a @ v)

    return dict(fn=fori_loop_step, args=(a, v), check=["while("])


@program("random_dropout", "MLP training step with dropout (p=0.25) drawn "
         "from a raw uint32[2] threefry key argument; SGD; params donated")
def build_random_dropout():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    params = {"w1": _normal(rng, (32, 64), 0.18), "w2": _normal(rng, (64, 10), 0.125)}
    x = _normal(rng, (16, 32))
    y = rng.integers(0, 10, (16,)).astype(np.int32)
    key = np.array([0, 1234], np.uint32)   # == jax.random.PRNGKey(1234)

    def loss_fn(p, key, x, y):
        h = jax.nn.relu(x @ p["w1"])
        keep = jax.random.bernoulli(key, 0.75, h.shape)
        h = jnp.where(keep, h / 0.75, 0.0)
        return _xent(h @ p["w2"], y)

    def random_dropout_step(p, key, x, y):
        key, sub = jax.random.split(key)
        loss, g = jax.value_and_grad(loss_fn)(p, sub, x, y)
        return jax.tree.map(lambda a, d: a - 0.1 * d, p, g), key, loss

    return dict(fn=random_dropout_step, args=(params, key, x, y),
                jit_kwargs=dict(donate_argnums=(0,)))


# ---------------------------------------------------------------------------
# Worker: runs in a fresh process with XLA_FLAGS set by the parent.
# ---------------------------------------------------------------------------


def lstm_step_setup(seq, batch, inputs, hidden):
    """An LSTM under lax.scan training step (backprop through time, SGD)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    params = {"wx": _normal(rng, (inputs, 4 * hidden), 1 / np.sqrt(inputs)),
              "wh": _normal(rng, (hidden, 4 * hidden), 1 / np.sqrt(hidden)),
              "b": np.zeros((4 * hidden,), np.float32),
              "out": _normal(rng, (hidden, 1), 1 / np.sqrt(hidden))}
    xs = _normal(rng, (seq, batch, inputs))
    ys = _normal(rng, (batch, 1))

    def loss_fn(p, xs, ys):
        def cell(carry, x):
            h, c = carry
            z = x @ p["wx"] + h @ p["wh"] + p["b"]
            i, f, g, o = jnp.split(z, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), None
        zeros = jnp.zeros((batch, hidden), jnp.float32)
        (h, _), _ = jax.lax.scan(cell, (zeros, zeros), xs)
        return jnp.mean(jnp.square(h @ p["out"] - ys))

    def step(p, xs, ys):
        loss, g = jax.value_and_grad(loss_fn)(p, xs, ys)
        return jax.tree.map(lambda a, b: a - 0.1 * b, p, g), loss

    return step, (params, xs, ys)


@program("lstm_scan", "LSTM (input 8, hidden 16) under lax.scan over 8 steps, batch 4: "
         "backprop through time, SGD; params donated")
def build_lstm_scan():
    step, args = lstm_step_setup(8, 4, 8, 16)

    def lstm_scan_step(*a):
        return step(*a)
    return dict(fn=lstm_scan_step, args=args, jit_kwargs=dict(donate_argnums=(0,)))


def _entry_param_count(text):
    """Number of parameter instructions in the ENTRY computation."""
    m = re.search(r"^ENTRY [^\n]*\{\n(.*?)^\}", text, re.S | re.M)
    if not m:
        return None
    return len(re.findall(r"\bparameter\(\d+\)", m.group(1)))


def _array_desc(a):
    return {"dtype": str(a.dtype), "shape": list(a.shape)}


def worker(name, out_dir, dump_dir, buffer_assignment_max_bytes=BUFFER_ASSIGNMENT_MAX_BYTES):
    import numpy as np
    import jax
    import jaxlib

    description, builder = all_programs()[name]
    spec = builder()
    fn, args = spec["fn"], spec["args"]
    jit_kwargs = dict(spec.get("jit_kwargs", {}))
    jit_kwargs.setdefault("keep_unused", True)  # entry params == arg leaves

    leaves, treedef = jax.tree_util.tree_flatten(args)
    in_np = [np.asarray(a) for a in leaves]

    # Flat parameter indices that belong to donated top-level arguments.
    donate = tuple(jit_kwargs.get("donate_argnums", ()))
    donated_params, idx = [], 0
    for i, a in enumerate(args):
        n = len(jax.tree_util.tree_leaves(a))
        if i in donate:
            donated_params.extend(range(idx, idx + n))
        idx += n

    jitted = jax.jit(fn, **jit_kwargs)
    if "place" in spec:
        dev_args = spec["place"](args)
    else:
        dev_args = jax.tree.map(jax.device_put, args)
    lowered = jitted.lower(*dev_args)
    compiled = lowered.compile()
    mem = compiled.memory_analysis()
    outs = compiled(*dev_args)          # the one compilation that was dumped
    out_leaves = [np.asarray(o) for o in jax.tree_util.tree_leaves(outs)]

    mem_json = {}
    for attr in sorted(dir(mem)):
        if attr.startswith("_"):
            continue
        v = getattr(mem, attr)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            mem_json[attr] = v

    # Locate the dumps of this one module: module_NNNN.jit_<fn>.<suffix>.
    mod = "jit_" + fn.__name__
    def one(suffix):
        hits = sorted(glob.glob(os.path.join(dump_dir, "module_*.%s.%s" % (mod, suffix))))
        hits = [h for h in hits
                if re.fullmatch(r"module_\d+\.%s\.%s" % (re.escape(mod), re.escape(suffix)),
                                os.path.basename(h))]
        if len(hits) > 1:
            raise SystemExit("%s: %d dumps named *.%s.%s" % (name, len(hits), mod, suffix))
        return hits[0] if hits else None

    before = one("before_optimizations.txt")
    after = one("cpu_after_optimizations.txt")
    bufasg = one("cpu_after_optimizations-buffer-assignment.txt")
    if not before or not after:
        raise SystemExit("%s: missing dumps for %s in %s: %s" %
                         (name, mod, dump_dir, sorted(os.listdir(dump_dir))))

    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    copied = {}
    for key, path in (("before_optimizations", before),
                      ("after_optimizations", after),
                      ("buffer_assignment", bufasg)):
        if path is None:
            continue
        if key == "buffer_assignment" and os.path.getsize(path) > buffer_assignment_max_bytes:
            print("%s: buffer assignment %d bytes, not copied" % (name, os.path.getsize(path)))
            continue
        shutil.copyfile(path, os.path.join(out_dir, os.path.basename(path)))
        copied[key] = os.path.basename(path)

    with open(after) as f:
        after_text = f.read()
    with open(before) as f:
        before_text = f.read()
    for needle in spec.get("check", []):
        if needle not in after_text and needle not in before_text:
            raise SystemExit("%s: dumps do not contain %r" % (name, needle))
    n_entry = _entry_param_count(after_text)
    if n_entry != len(in_np):
        raise SystemExit("%s: ENTRY has %s parameters, %d argument leaves" %
                         (name, n_entry, len(in_np)))

    for i, a in enumerate(in_np):
        np.save(os.path.join(out_dir, "input_%d.npy" % i), a)
    for i, a in enumerate(out_leaves):
        np.save(os.path.join(out_dir, "output_%d.npy" % i), a)
    with open(os.path.join(out_dir, "memory_analysis.json"), "w") as f:
        json.dump(mem_json, f, indent=2, sort_keys=True)
        f.write("\n")

    manifest = {
        "program": name,
        "description": description,
        "jax_version": jax.__version__,
        "jaxlib_version": jaxlib.__version__,
        "platform": jax.devices()[0].platform,
        "seed": SEED,
        "jitted_function": fn.__name__,
        "hlo_module": mod,
        "files": copied,
        "contains_stack_frames": ("\nStackFrames\n" in after_text),
        "contains_file_names": ("\nFileNames\n" in after_text),
        "num_parameters": len(in_np),
        "num_outputs": len(out_leaves),
        "inputs": [dict(file="input_%d.npy" % i, **_array_desc(a)) for i, a in enumerate(in_np)],
        "outputs": [dict(file="output_%d.npy" % i, **_array_desc(a)) for i, a in enumerate(out_leaves)],
        "donate_argnums": list(donate),
        "donated_parameters": donated_params,
        "memory_analysis": "memory_analysis.json",
    }
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print("%s: %d params, %d outputs, %s" % (name, len(in_np), len(out_leaves),
                                           ", ".join(sorted(copied.values()))))


# ---------------------------------------------------------------------------
# Parent: one subprocess per program, then the corpus README.
# ---------------------------------------------------------------------------


def _ranges(xs):
    """[0,1,2,5] -> '0-2,5'; [] -> '-'."""
    out, xs = [], sorted(xs)
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else "%d-%d" % (xs[i], xs[j]))
        i = j + 1
    return ",".join(out) or "-"


def write_readme(out_root):
    rows, versions = [], set()
    for name in PROGRAMS:
        mpath = os.path.join(out_root, name, "manifest.json")
        if not os.path.exists(mpath):
            continue
        with open(mpath) as f:
            m = json.load(f)
        with open(os.path.join(out_root, name, "memory_analysis.json")) as f:
            mem = json.load(f)
        versions.add("jax %s / jaxlib %s" % (m["jax_version"], m["jaxlib_version"]))
        rows.append("| `%s` | %d | %d | %s | %d | %d | %d | %d | %s |" % (
            name, m["num_parameters"], m["num_outputs"],
            _ranges(m["donated_parameters"]),
            mem.get("argument_size_in_bytes", -1), mem.get("output_size_in_bytes", -1),
            mem.get("alias_size_in_bytes", -1), mem.get("temp_size_in_bytes", -1),
            m["description"]))
    text = """# Real JAX HLO corpus

Generated by hand (JAX is not a test dependency) with

    .venv-jax/bin/python bench/jax_corpus/generate.py --out tests/corpus
    .venv-jax/bin/python bench/jax_corpus/generate.py --out tests/corpus --only <program>

using %s on XLA:CPU, seed %d. Last generated %s.

Each directory holds, for the single jitted function `jit_<program>_step`:

* `module_NNNN.jit_<fn>.before_optimizations.txt` and
  `module_NNNN.jit_<fn>.cpu_after_optimizations.txt`: XLA's own dumps
  (`--xla_dump_to --xla_dump_hlo_as_text`), byte-for-byte, including the
  `FileNames`/`FunctionNames`/`FileLocations`/`StackFrames` tables and
  `stack_frame_id=` metadata;
* `module_NNNN.jit_<fn>.cpu_after_optimizations-buffer-assignment.txt`:
  XLA:CPU's buffer assignment for that module;
* `memory_analysis.json`: `compiled.memory_analysis()` of the same compilation
  (the compiled object that was dumped is the one that was run);
* `input_<i>.npy`: the seeded argument leaves, in entry parameter order;
* `output_<i>.npy`: XLA:CPU's results, in entry ROOT tuple order;
* `manifest.json`: versions, file names, dtypes/shapes, donated parameters.

Sizes are bytes from `memory_analysis()`; "donated" lists flat parameter numbers.

| program | params | outputs | donated | argument | output | alias | temp | description |
|---|---|---|---|---|---|---|---|---|
%s
""" % (", ".join(sorted(versions)), SEED,
       datetime.date.today().isoformat(), "\n".join(rows))
    write_readme_keeping_sections(out_root, text)


def run_workers(script, names, out_root, buffer_assignment_max_bytes, xla_flags="",
                prefix="hmo_jax_dump_", extra_args=()):
    """Runs `script --worker NAME` (plus `extra_args`) for each program in a
    fresh process (so each XLA dump directory holds one module), with
    `xla_flags` before the dump flags. Returns the names whose worker failed."""
    failed = []
    for n in names:
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            env = dict(os.environ)
            env["XLA_FLAGS"] = (xla_flags + " " if xla_flags else "") + \
                "--xla_dump_to=%s --xla_dump_hlo_as_text" % tmp
            env["JAX_PLATFORMS"] = "cpu"
            env.setdefault("JAX_ENABLE_X64", "0")
            cmd = [sys.executable, script, "--worker", n,
                   "--buffer-assignment-max-bytes", str(buffer_assignment_max_bytes),
                   "--out", os.path.join(out_root, n), "--dump", tmp, *extra_args]
            if subprocess.run(cmd, env=env).returncode != 0:
                failed.append(n)
    return failed


def write_readme_keeping_sections(out_root, text):
    """Writes out_root/README.md as `text` followed by the hand-written
    sections after the generated table (from the first "## ") of the old one."""
    path = os.path.join(out_root, "README.md")
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        tail = old.find("\n## ")
        if tail >= 0:
            text += old[tail:]
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="tests/corpus")
    ap.add_argument("--only", action="append", help="program name (repeatable)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--real-size", action="store_true",
                    help="the real-size benchmark programs of real_size.py (not committed)")
    ap.add_argument("--buffer-assignment-max-bytes", type=int, default=BUFFER_ASSIGNMENT_MAX_BYTES,
                    help="copy XLA's buffer-assignment dump only up to this size")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    a = ap.parse_args()

    table = real_size_programs() if a.real_size else PROGRAMS
    if a.list:
        for n, (d, _) in table.items():
            print("%-18s %s" % (n, d))
        return
    if a.worker:
        worker(a.worker, a.out, a.dump, a.buffer_assignment_max_bytes)
        return

    names = a.only or list(table)
    for n in names:
        if n not in table:
            raise SystemExit("unknown program %r; --list shows them" % n)
    out_root = os.path.abspath(a.out)
    os.makedirs(out_root, exist_ok=True)
    failed = run_workers(os.path.abspath(__file__), names, out_root, a.buffer_assignment_max_bytes)
    if not a.real_size:
        write_readme(out_root)
    if failed:
        raise SystemExit("failed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
