"""Real-size programs for the speed benchmark (never committed, never tests).

The committed corpus (`tests/corpus`) is KB-sized: there dispatch overhead hides
what a backend's kernels cost. These programs are sized so that XLA:CPU takes
tens to hundreds of milliseconds per step on a 2-core machine. They use the
builder protocol of generate.py and register into generate.REAL_SIZE_PROGRAMS;
`generate.py --real-size --out DIR` writes them (seeded, deterministic) and
`speed.py --real-size` generates them into a temporary directory and times them.
"""

from generate import (_normal, _rng, _xent, _layernorm, _conv, lstm_step_setup, mlp_step_spec,
                      program, REAL_SIZE_PROGRAMS)


def real_size(name, description):
    return program(name, description, table=REAL_SIZE_PROGRAMS)


def _adam(params, grads, opt):
    import jax
    import jax.numpy as jnp
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
    count = opt["count"] + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, opt["m"], grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, opt["v"], grads)
    c = count.astype(jnp.float32)
    mhat, vhat = 1.0 / (1 - b1 ** c), 1.0 / (1 - b2 ** c)
    params = jax.tree.map(lambda p, m, v: p - lr * (m * mhat) / (jnp.sqrt(v * vhat) + eps),
                          params, m, v)
    return params, {"m": m, "v": v, "count": count}


def _adam_state(params):
    """A state some steps into training: with zero moments the first update is
    -lr * sign(gradient), and a gradient near zero flips sign under bf16
    rounding, which would make the outputs incomparable between backends."""
    import jax
    import numpy as np
    rng = np.random.default_rng(7)
    m = jax.tree.map(lambda p: _normal(rng, p.shape, 1e-3), params)
    v = jax.tree.map(lambda p: np.square(_normal(rng, p.shape, 1e-3)) + np.float32(1e-6), params)
    return {"m": m, "v": v, "count": np.full((), 10, np.int32)}


def _decoder_layer(p, x, heads, compute_dtype):
    """Pre-norm causal decoder layer; matmuls in compute_dtype, norms in f32."""
    import jax
    import jax.numpy as jnp
    bsz, s, d = x.shape
    dh = d // heads
    cast = lambda t: t.astype(compute_dtype)
    h = _layernorm(x, p["ln1_g"], p["ln1_b"])
    qkv = cast(h) @ cast(p["wqkv"])
    q, k, v = (t.reshape(bsz, s, heads, dh).transpose(0, 2, 1, 3) for t in jnp.split(qkv, 3, -1))
    att = jnp.einsum("bhqd,bhkd->bhqk", q, k).astype(jnp.float32) / jnp.sqrt(float(dh))
    att = jnp.where(jnp.tril(jnp.ones((s, s), bool)), att, -1e9)
    att = cast(jax.nn.softmax(att, axis=-1))
    o = jnp.einsum("bhqk,bhkd->bhqd", att, v).transpose(0, 2, 1, 3).reshape(bsz, s, d)
    x = x + (o @ cast(p["wo"])).astype(jnp.float32)
    h = cast(_layernorm(x, p["ln2_g"], p["ln2_b"]))
    h = jax.nn.gelu(h @ cast(p["w1"]) + cast(p["b1"]))
    return x + (h @ cast(p["w2"])).astype(jnp.float32) + p["b2"]


def _decoder_params(rng, d, ff):
    import numpy as np
    return {
        "ln1_g": np.ones((d,), np.float32), "ln1_b": np.zeros((d,), np.float32),
        "wqkv": _normal(rng, (d, 3 * d), 1 / np.sqrt(d)), "wo": _normal(rng, (d, d), 1 / np.sqrt(d)),
        "ln2_g": np.ones((d,), np.float32), "ln2_b": np.zeros((d,), np.float32),
        "w1": _normal(rng, (d, ff), 1 / np.sqrt(d)), "b1": np.zeros((ff,), np.float32),
        "w2": _normal(rng, (ff, d), 1 / np.sqrt(ff)), "b2": np.zeros((d,), np.float32),
    }


def _lm_step(scan, compute_dtype, vocab, d, heads, ff, seq, batch, layers):
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    stack = [_decoder_params(rng, d, ff) for _ in range(layers)]
    if scan:
        stack = jax.tree.map(lambda *xs: np.stack(xs), *stack)
    params = {"embed": _normal(rng, (vocab, d), 0.02), "layers": stack,
              "lnf_g": np.ones((d,), np.float32), "lnf_b": np.zeros((d,), np.float32),
              "head": _normal(rng, (d, vocab), 1 / np.sqrt(d))}
    tokens = rng.integers(0, vocab, (batch, seq)).astype(np.int32)
    targets = rng.integers(0, vocab, (batch, seq)).astype(np.int32)

    def loss_fn(params, tokens, targets):
        x = jnp.take(params["embed"], tokens, axis=0)
        if scan:
            x, _ = jax.lax.scan(lambda x, p: (_decoder_layer(p, x, heads, compute_dtype), None),
                                x, params["layers"])
        else:
            for p in params["layers"]:
                x = _decoder_layer(p, x, heads, compute_dtype)
        x = _layernorm(x, params["lnf_g"], params["lnf_b"])
        logits = (x.astype(compute_dtype) @ params["head"].astype(compute_dtype)).astype(jnp.float32)
        return _xent(logits, targets)

    def step(params, opt, tokens, targets):
        loss, g = jax.value_and_grad(loss_fn)(params, tokens, targets)
        params, opt = _adam(params, g, opt)
        return params, opt, loss

    return step, (params, _adam_state(params), tokens, targets)


def _lm_spec(name, scan, compute_dtype):
    step, args = _lm_step(scan, compute_dtype, 2048, 256, 4, 1024, 128, 8, 4)

    def named(*a):
        return step(*a)
    named.__name__ = name
    return dict(fn=named, args=args, jit_kwargs=dict(donate_argnums=(0, 1)))


@real_size("gpt_bf16_adam", "GPT-style decoder training step (4 layers, d=256, seq 128, batch 8, "
           "vocab 2048), bf16 matmuls, f32 norms and Adam; params and optimizer state donated")
def build_gpt_bf16_adam():
    import jax.numpy as jnp
    return _lm_spec("gpt_bf16_adam_step", False, jnp.bfloat16)


@real_size("gpt_f16_adam", "The GPT-style step of gpt_bf16_adam with f16 matmuls (f16 GEMMs, "
           "no f16 GEMM instructions on most x86 hosts), f32 norms and Adam; donated")
def build_gpt_f16_adam():
    import jax.numpy as jnp
    return _lm_spec("gpt_f16_adam_step", False, jnp.float16)


@real_size("mobilenet_bf16_infer", "MobileNet-style bf16 inference (batch 16, 64x64x3): a 3x3 stem, "
           "4 blocks of depthwise 3x3 + pointwise 1x1 convolutions, each with bias and relu6, "
           "global pool, dense")
def build_mobilenet_bf16_infer():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    widths = [32, 64, 128, 128, 256]
    params = {"stem": _normal(rng, (3, 3, 3, widths[0]), 0.3),
              "stem_b": _normal(rng, (widths[0],), 0.1),
              "blocks": [{"dw": _normal(rng, (3, 3, 1, c_in), 0.3),
                          "dw_b": _normal(rng, (c_in,), 0.1),
                          "pw": _normal(rng, (1, 1, c_in, c_out), 1 / np.sqrt(c_in)),
                          "pw_b": _normal(rng, (c_out,), 0.1)}
                         for c_in, c_out in zip(widths[:-1], widths[1:])],
              "w": _normal(rng, (widths[-1], 10), 1 / np.sqrt(widths[-1]))}
    x = _normal(rng, (16, 64, 64, 3))

    def conv(h, w, groups=1, stride=1):
        return jax.lax.conv_general_dilated(
            h, w.astype(jnp.bfloat16), window_strides=(stride, stride), padding="SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=groups)

    def relu6(h, b):
        return jnp.clip(h + b.astype(jnp.bfloat16), 0, 6)

    def mobilenet_bf16_infer(p, x):
        h = relu6(conv(x.astype(jnp.bfloat16), p["stem"]), p["stem_b"])
        for i, blk in enumerate(p["blocks"]):
            h = relu6(conv(h, blk["dw"], groups=h.shape[-1], stride=2 if i % 2 else 1), blk["dw_b"])
            h = relu6(conv(h, blk["pw"]), blk["pw_b"])
        return jnp.mean(h.astype(jnp.float32), axis=(1, 2)) @ p["w"]

    return dict(fn=mobilenet_bf16_infer, args=(params, x))


@real_size("transformer_scan_large", "f32 transformer LM training step, 4 layers stacked under "
           "lax.scan (d=256, seq 128, batch 8, vocab 2048), Adam; donated")
def build_transformer_scan_large():
    import jax.numpy as jnp
    return _lm_spec("transformer_scan_large_step", True, jnp.float32)


@real_size("moe_top2", "Top-2 mixture-of-experts layer training step (2048 tokens, d=256, "
           "8 experts of ff 512, softmax router, dense one-hot dispatch), SGD; params donated")
def build_moe_top2():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    tokens, d, experts, ff = 2048, 256, 8, 512
    params = {"router": _normal(rng, (d, experts), 1 / np.sqrt(d)),
              "w1": _normal(rng, (experts, d, ff), 1 / np.sqrt(d)),
              "w2": _normal(rng, (experts, ff, d), 1 / np.sqrt(ff))}
    x = _normal(rng, (tokens, d))
    y = _normal(rng, (tokens, d))

    def loss_fn(p, x, y):
        gates = jax.nn.softmax(x @ p["router"], axis=-1)
        top, idx = jax.lax.top_k(gates, 2)
        combine = jnp.sum(jax.nn.one_hot(idx, experts) * top[..., None], axis=1)   # [t, e]
        dispatch = (combine > 0).astype(x.dtype)
        xe = jnp.einsum("te,td->etd", dispatch, x)
        h = jax.nn.relu(jnp.einsum("etd,edf->etf", xe, p["w1"]))
        ye = jnp.einsum("etf,efd->etd", h, p["w2"])
        out = jnp.einsum("etd,te->td", ye, combine)
        return jnp.mean(jnp.square(out - y))

    def moe_top2_step(p, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return jax.tree.map(lambda a, b: a - 0.1 * b, p, g), loss

    return dict(fn=moe_top2_step, args=(params, x, y), jit_kwargs=dict(donate_argnums=(0,)))


@real_size("lstm_scan_large", "LSTM under lax.scan training step (64 steps, batch 64, input 256, "
           "hidden 512), backprop through time, SGD; params donated")
def build_lstm_scan_large():
    step, args = lstm_step_setup(64, 64, 256, 512)

    def lstm_scan_large_step(*a):
        return step(*a)
    return dict(fn=lstm_scan_large_step, args=args, jit_kwargs=dict(donate_argnums=(0,)))


@real_size("resnet_bn", "ResNet-style CNN training step (batch 16, 32x32x3, stem 32 channels, "
           "3 residual blocks of 3x3 convs with batch norm, global pool, dense), SGD; donated")
def build_resnet_bn():
    import jax
    import jax.numpy as jnp
    import numpy as np
    rng = _rng()
    c = 32
    params = {"stem": _normal(rng, (3, 3, 3, c), 0.2),
              "blocks": [{"c1": _normal(rng, (3, 3, c, c), 1 / np.sqrt(9 * c)),
                          "c2": _normal(rng, (3, 3, c, c), 1 / np.sqrt(9 * c)),
                          "g1": np.ones((c,), np.float32), "b1": np.zeros((c,), np.float32),
                          "g2": np.ones((c,), np.float32), "b2": np.zeros((c,), np.float32)}
                         for _ in range(3)],
              "w": _normal(rng, (c, 10), 1 / np.sqrt(c))}
    x = _normal(rng, (16, 32, 32, 3))
    y = rng.integers(0, 10, (16,)).astype(np.int32)

    def bn(h, g, b):
        mu = jnp.mean(h, axis=(0, 1, 2))
        var = jnp.var(h, axis=(0, 1, 2))
        return (h - mu) * jax.lax.rsqrt(var + 1e-5) * g + b

    def loss_fn(p, x, y):
        h = jax.nn.relu(_conv(x, p["stem"]))
        for blk in p["blocks"]:
            r = jax.nn.relu(bn(_conv(h, blk["c1"]), blk["g1"], blk["b1"]))
            h = jax.nn.relu(h + bn(_conv(r, blk["c2"]), blk["g2"], blk["b2"]))
        return _xent(jnp.mean(h, axis=(1, 2)) @ p["w"], y)

    def resnet_bn_step(p, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return jax.tree.map(lambda a, d: a - 0.05 * d, p, g), loss

    return dict(fn=resnet_bn_step, args=(params, x, y), jit_kwargs=dict(donate_argnums=(0,)))


@real_size("mlp_large", "MLP training step (batch 256, 1024-2048-2048-1024-10), softmax "
           "cross-entropy, SGD; params donated")
def build_mlp_large():
    return mlp_step_spec([1024, 2048, 2048, 1024, 10], 256, "mlp_large_step")
