#!/usr/bin/env python3
"""Generate the SPMD-partitioned JAX HLO corpus under tests/corpus_spmd/.

Each program is a small jitted JAX function over a 4-device mesh (GSPMD
shardings via jax.jit in_shardings/out_shardings, or jax.shard_map with
explicit collectives). For every program this script starts a fresh Python
subprocess with

    XLA_FLAGS="--xla_force_host_platform_device_count=4
               --xla_dump_to=<tmpdir> --xla_dump_hlo_as_text"

(XLA reads XLA_FLAGS once, at process start, so each dump directory holds the
one module), lowers and compiles the function once with
jax.jit(...).lower(*args).compile(), runs that compiled object on seeded,
sharded inputs and writes into <out>/<program>/:

  * the raw XLA dumps of that one module, byte-for-byte:
      module_NNNN.jit_<fn>.before_optimizations.txt
      module_NNNN.jit_<fn>.cpu_after_optimizations.txt
      module_NNNN.jit_<fn>.cpu_after_optimizations-buffer-assignment.txt
  * memory_analysis.json   compiled.memory_analysis() (per device)
  * device<k>/input_<i>.npy   the shard of entry parameter i that the device
                              with logical id k holds
  * device<k>/output_<i>.npy  the shard of output i (ROOT tuple element i)
                              that the device with logical id k holds
  * manifest.json

"Logical id" k is XLA's: the device at position k of the compiled
executable's device assignment, flattened as replica * num_partitions +
partition (so SPMD partition k when replica_count is 1). The shard shapes are
checked against the optimized module's entry_computation_layout, and the
shard each device holds is checked against the tile that the optimized
module's own `sharding={...}` annotation assigns to logical id k.

JAX is NOT a test dependency: run this by hand and commit its output.

    .venv-jax/bin/python bench/jax_corpus/generate_spmd.py --out tests/corpus_spmd
    .venv-jax/bin/python bench/jax_corpus/generate_spmd.py --out tests/corpus_spmd --only ring_permute

--real-size writes the same programs at the sizes of REAL_SIZES (benchmark
only, never committed; no corpus README) and records in each manifest XLA's
warm median of the compiled sharded step (`xla_timing`, time_compiled), timed
in the worker that generated it; --time PROGRAM only compiles and times
(speed_spmd.py runs it right before hmo):

    .venv-jax/bin/python bench/jax_corpus/generate_spmd.py --real-size --out /tmp/spmd_rs
    .venv-jax/bin/python bench/jax_corpus/generate_spmd.py --real-size --time tp_mlp
"""

import argparse
import datetime
import functools
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import _normal, _rng, _xent, run_workers, write_readme_keeping_sections  # noqa: E402

SEED = 20240601
NUM_DEVICES = 4
BUFFER_ASSIGNMENT_MAX_BYTES = 256 * 1024
REAL_SIZE_TIMED_RUNS = 6       # XLA's warm runs timed per real-size program

# Opcodes reported as "collectives" (with partition-id / replica-id).
COLLECTIVE_OPCODES = (
    "all-reduce", "all-reduce-start", "all-reduce-done",
    "all-gather", "all-gather-start", "all-gather-done",
    "reduce-scatter",
    "collective-permute", "collective-permute-start", "collective-permute-done",
    "all-to-all", "ragged-all-to-all", "collective-broadcast",
    "partition-id", "replica-id",
)

# name -> (description, builder function). Order is the table order.
PROGRAMS = {}


def program(name, description):
    def deco(fn):
        PROGRAMS[name] = (description, fn)
        return fn
    return deco


# ---------------------------------------------------------------------------
# Program builders. Each returns a dict:
#   fn:          the Python function to jit (its __name__ names the dump files)
#   args:        tuple of pytrees of global numpy arrays
#   mesh:        the jax.sharding.Mesh
#   in_specs:    tuple of pytrees of PartitionSpec, like args
#   out_specs:   pytree of PartitionSpec of the result
#   donate_argnums: optional
#   reference:   callable(*args) -> pytree of global numpy results, computed
#                without the mesh (on one device or in numpy); checked
#   check:       optional list of opcodes the optimized module must contain
# Builders import jax lazily so the parent process never initialises XLA.
# ---------------------------------------------------------------------------


def _mesh(shape, names):
    """A mesh whose devices are jax.devices() in order, reshaped."""
    import jax
    import numpy as np
    from jax.sharding import Mesh
    return Mesh(np.array(jax.devices()).reshape(shape), names)


def _single_device(fn):
    """Run fn under jax.jit on device 0 with unsharded inputs (reference)."""
    import jax
    import numpy as np

    def run(*args):
        dev = jax.devices()[0]
        args = jax.tree.map(lambda a: jax.device_put(a, dev), args)
        out = jax.jit(fn)(*args)
        return jax.tree.map(np.asarray, out)
    return run


def _mlp_loss(params, x, y):
    import jax
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    return _xent(h @ params["w2"] + params["b2"], y)


def _sgd_step(loss_fn, lr):
    import jax

    def step(params, x, y):
        loss, g = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree.map(lambda p, d: p - lr * d, params, g), loss
    return step


@program("dp_mlp_allreduce", "Data-parallel MLP (16-32-8) training step on "
         "mesh (data=4): batch 16 sharded P('data'), params replicated and "
         "donated, gradient all-reduce, SGD update")
def build_dp_mlp_allreduce(batch=16, d_in=16, hidden=32, classes=8):
    import numpy as np
    from jax.sharding import PartitionSpec as P
    rng = _rng()
    params = {"w1": _normal(rng, (d_in, hidden), 0.25), "b1": np.zeros((hidden,), np.float32),
              "w2": _normal(rng, (hidden, classes), 0.18), "b2": np.zeros((classes,), np.float32)}
    x = _normal(rng, (batch, d_in))
    y = rng.integers(0, classes, (batch,)).astype(np.int32)
    step = _sgd_step(_mlp_loss, 0.1)

    def dp_mlp_allreduce_step(params, x, y):
        return step(params, x, y)

    rep = {k: P() for k in params}
    return dict(fn=dp_mlp_allreduce_step, args=(params, x, y),
                mesh=_mesh((4,), ("data",)),
                in_specs=(rep, P("data"), P("data")), out_specs=(rep, P()),
                donate_argnums=(0,), reference=_single_device(step),
                check=["all-reduce"])


@program("tp_mlp", "Tensor-parallel (Megatron) MLP forward on mesh "
         "(model=4): x replicated, w1 [16,64] column-sharded P(None,'model') "
         "with b1, w2 [64,16] row-sharded P('model',None), all-reduce of the "
         "partial outputs, replicated result")
def build_tp_mlp(batch=8, d=16, ff=64):
    import jax
    import numpy as np
    from jax.sharding import PartitionSpec as P
    rng = _rng()
    x = _normal(rng, (batch, d))
    w1 = _normal(rng, (d, ff), 0.25)
    b1 = _normal(rng, (ff,), 0.1)
    w2 = _normal(rng, (ff, d), 0.125)
    b2 = _normal(rng, (d,), 0.1)

    def tp_mlp_forward(x, w1, b1, w2, b2):
        h = jax.nn.gelu(x @ w1 + b1)
        return h @ w2 + b2

    return dict(fn=tp_mlp_forward, args=(x, w1, b1, w2, b2),
                mesh=_mesh((4,), ("model",)),
                in_specs=(P(), P(None, "model"), P("model"), P("model", None), P()),
                out_specs=P(), reference=_single_device(tp_mlp_forward),
                check=["all-reduce"])


@program("mesh2x2_mlp_step", "MLP (16-32-8, tanh, MSE) training step on mesh "
         "(data=2, model=2): w1 P(None,'model'), w2 P('model',None) donated, "
         "x,y P('data',None); SGD; loss replicated")
def build_mesh2x2_mlp_step(batch=16, d_in=16, hidden=32, d_out=8):
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    rng = _rng()
    w1 = _normal(rng, (d_in, hidden), 0.25)
    w2 = _normal(rng, (hidden, d_out), 0.18)
    x = _normal(rng, (batch, d_in))
    y = _normal(rng, (batch, d_out))

    def mesh2x2_mlp_step(w1, w2, x, y):
        def loss_fn(w1, w2):
            return jnp.mean(jnp.square(jnp.tanh(x @ w1) @ w2 - y))
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w1, w2)
        return w1 - 0.1 * g1, w2 - 0.1 * g2, loss

    return dict(fn=mesh2x2_mlp_step, args=(w1, w2, x, y),
                mesh=_mesh((2, 2), ("data", "model")),
                in_specs=(P(None, "model"), P("model", None),
                          P("data", None), P("data", None)),
                out_specs=(P(None, "model"), P("model", None), P()),
                donate_argnums=(0, 1), reference=_single_device(mesh2x2_mlp_step))


@program("fsdp_mlp", "FSDP/ZeRO-3 MLP (16-32-8) training step under shard_map "
         "on mesh (data=4): w1,w2 sharded P('data') along dim 0 and donated, "
         "all_gather(tiled) for the forward, gradients psum_scatter(tiled) "
         "(reduce-scatter), sharded SGD update; loss pmean")
def build_fsdp_mlp(batch=16, d_in=16, hidden=32, classes=8):
    import jax
    import numpy as np
    from jax.sharding import PartitionSpec as P
    rng = _rng()
    w1 = _normal(rng, (d_in, hidden), 0.25)
    w2 = _normal(rng, (hidden, classes), 0.18)
    x = _normal(rng, (batch, d_in))
    y = rng.integers(0, classes, (batch,)).astype(np.int32)
    mesh = _mesh((4,), ("data",))
    lr = 0.1

    def loss_fn(w1, w2, x, y):
        return _xent(jax.nn.relu(x @ w1) @ w2, y)

    def shard_step(w1, w2, x, y):
        f1 = jax.lax.all_gather(w1, "data", axis=0, tiled=True)
        f2 = jax.lax.all_gather(w2, "data", axis=0, tiled=True)
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(f1, f2, x, y)
        # The global loss is the mean of the per-shard means (equal shards).
        g1 = jax.lax.psum_scatter(g1, "data", scatter_dimension=0, tiled=True) / 4
        g2 = jax.lax.psum_scatter(g2, "data", scatter_dimension=0, tiled=True) / 4
        return w1 - lr * g1, w2 - lr * g2, jax.lax.pmean(loss, "data")

    specs = (P("data"), P("data"), P("data"), P("data"))
    out_specs = (P("data"), P("data"), P())
    sm = jax.shard_map(shard_step, mesh=mesh, in_specs=specs, out_specs=out_specs)

    def fsdp_mlp_step(w1, w2, x, y):
        return sm(w1, w2, x, y)

    def ref(w1, w2, x, y):
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w1, w2, x, y)
        return w1 - lr * g1, w2 - lr * g2, loss

    return dict(fn=fsdp_mlp_step, args=(w1, w2, x, y), mesh=mesh,
                in_specs=specs, out_specs=out_specs, donate_argnums=(0, 1),
                reference=_single_device(ref),
                check=["all-gather", "reduce-scatter"])


@program("ring_permute", "Ring all-reduce by hand under shard_map on mesh "
         "(ring=4): each device's [4,32] block is split in 4 chunks; 3 "
         "reduce-scatter steps and 3 all-gather steps, each a "
         "lax.ppermute to the next device (collective-permute) with the chunk "
         "picked by axis_index (partition-id, dynamic-slice)")
def build_ring_permute(width=32):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import PartitionSpec as P
    rng = _rng()
    n = 4
    x = _normal(rng, (n * n, width))   # device d holds rows [4d, 4d+4)
    mesh = _mesh((n,), ("ring",))
    perm = [(j, (j + 1) % n) for j in range(n)]

    def shard_ring(blk):                # blk: [n, width], chunk c = row c
        me = jax.lax.axis_index("ring")

        def chunk(a, c):
            return jax.lax.dynamic_slice_in_dim(a, c % n, 1, axis=0)

        def put(a, c, v):
            return jax.lax.dynamic_update_slice_in_dim(a, v, c % n, axis=0)
        acc = blk
        for s in range(n - 1):          # reduce-scatter phase
            recv = jax.lax.ppermute(chunk(acc, me - s), "ring", perm)
            c = me - s - 1
            acc = put(acc, c, chunk(acc, c) + recv)
        # device me now holds the full sum of chunk me + 1
        for s in range(n - 1):          # all-gather phase
            recv = jax.lax.ppermute(chunk(acc, me + 1 - s), "ring", perm)
            acc = put(acc, me - s, recv)
        return acc

    sm = jax.shard_map(shard_ring, mesh=mesh, in_specs=P("ring"),
                       out_specs=P("ring"))

    def ring_permute_allreduce(x):
        return sm(x)

    def ref(x):
        s = x.reshape(n, n, width).sum(axis=0)
        return np.concatenate([s] * n, axis=0)

    return dict(fn=ring_permute_allreduce, args=(x,), mesh=mesh,
                in_specs=(P("ring"),), out_specs=P("ring"), reference=ref,
                reference_rtol=1e-5, check=["collective-permute", "partition-id"])


@program("all_to_all", "MoE-style top-1 layer under shard_map on mesh "
         "(expert=4): 8 tokens x 8 features per device, replicated router, "
         "capacity-2 dispatch to [4 experts, 2, 8], lax.all_to_all (tiled) to "
         "the experts, per-expert relu(x @ w_e) with w [4,8,8] sharded "
         "P('expert'), all_to_all back, gated combine")
def build_all_to_all(tokens=8, dim=8, capacity=2):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import PartitionSpec as P
    rng = _rng()
    E, T, D, C = 4, tokens, dim, capacity  # experts(=devices), tokens/device, dim, capacity
    x = _normal(rng, (E * T, D))
    wr = _normal(rng, (D, E), 0.5)
    we = _normal(rng, (E, D, D), 1 / np.sqrt(D))
    mesh = _mesh((E,), ("expert",))

    def dispatch(x, wr):
        logits = x @ wr
        gate = jax.nn.softmax(logits, axis=-1)
        e = jnp.argmax(logits, axis=-1)
        onehot = jax.nn.one_hot(e, E, dtype=x.dtype)                 # [T,E]
        pos = (jnp.cumsum(onehot, axis=0) - 1.0) * onehot           # slot in expert
        slot = jax.nn.one_hot(pos.astype(jnp.int32), C, dtype=x.dtype) * onehot[..., None]
        combine = slot * (gate * onehot)[..., None]                  # [T,E,C]
        return slot, combine

    def shard_moe(x, wr, w):            # x [T,D], wr [D,E], w [1,D,D]
        slot, combine = dispatch(x, wr)
        xin = jnp.einsum("tec,td->ecd", slot, x)                     # [E,C,D]
        xin = jax.lax.all_to_all(xin, "expert", 0, 0, tiled=True)     # [src,C,D]
        h = jax.nn.relu(jnp.einsum("scd,df->scf", xin, w[0]))
        h = jax.lax.all_to_all(h, "expert", 0, 0, tiled=True)         # [E,C,D]
        return jnp.einsum("tec,ecd->td", combine, h)

    specs = (P("expert"), P(), P("expert"))
    sm = jax.shard_map(shard_moe, mesh=mesh, in_specs=specs, out_specs=P("expert"))

    def all_to_all_moe(x, wr, we):
        return sm(x, wr, we)

    def ref(x, wr, we):
        outs = []
        for d in range(E):
            xd = x[d * T:(d + 1) * T]
            slot, combine = dispatch(xd, wr)
            xin = jnp.einsum("tec,td->ecd", slot, xd)
            h = jax.nn.relu(jnp.einsum("ecd,edf->ecf", xin, we))
            outs.append(jnp.einsum("tec,ecd->td", combine, h))
        return jnp.concatenate(outs, axis=0)

    return dict(fn=all_to_all_moe, args=(x, wr, we), mesh=mesh,
                in_specs=specs, out_specs=P("expert"),
                reference=_single_device(ref), check=["all-to-all"])


# Real-size variants (benchmark only, never committed, never tests): the same
# builders, structure, collectives and shardings, at sizes where XLA:CPU with
# 4 host devices takes tens to hundreds of milliseconds a step on a 2-core
# machine. name -> (description, builder keyword arguments).
REAL_SIZES = {
    "dp_mlp_allreduce": ("Data-parallel MLP (512-1024-256) training step on mesh (data=4): "
                         "batch 1024 sharded P('data'), params replicated and donated, "
                         "gradient all-reduce, SGD update",
                         dict(batch=1024, d_in=512, hidden=1024, classes=256)),
    "tp_mlp": ("Tensor-parallel (Megatron) MLP forward on mesh (model=4): x [256,1024] "
               "replicated, w1 [1024,4096] P(None,'model') with b1, w2 [4096,1024] "
               "P('model',None), all-reduce of the partial outputs, replicated result",
               dict(batch=256, d=1024, ff=4096)),
    "mesh2x2_mlp_step": ("MLP (512-2048-256, tanh, MSE) training step on mesh (data=2, "
                         "model=2), batch 512: w1 P(None,'model'), w2 P('model',None) "
                         "donated, x,y P('data',None); SGD; loss replicated",
                         dict(batch=512, d_in=512, hidden=2048, d_out=256)),
    "fsdp_mlp": ("FSDP/ZeRO-3 MLP (512-1024-256) training step under shard_map on mesh "
                 "(data=4), batch 1024: w1,w2 P('data') donated, all_gather(tiled), "
                 "psum_scatter(tiled), sharded SGD update; loss pmean",
                 dict(batch=1024, d_in=512, hidden=1024, classes=256)),
    "ring_permute": ("Ring all-reduce by hand under shard_map on mesh (ring=4): each "
                     "device's [4,1048576] block in 4 chunks, 3 reduce-scatter and 3 "
                     "all-gather ppermute steps (collective-permute, partition-id, "
                     "dynamic-slice)",
                     dict(width=1 << 20)),
    "all_to_all": ("MoE-style top-1 layer under shard_map on mesh (expert=4): 512 tokens x "
                   "256 features per device, capacity-256 dispatch to [4,256,256], "
                   "all_to_all (tiled) there and back, per-expert relu(x @ w_e), w "
                   "[4,256,256] P('expert'), gated combine",
                   dict(tokens=512, dim=256, capacity=256)),
}


def program_table(real_size=False):
    """name -> (description, builder): the committed programs, or with
    real_size their real-size variants (builders bound to REAL_SIZES)."""
    if not real_size:
        return PROGRAMS
    return {n: (REAL_SIZES[n][0], functools.partial(PROGRAMS[n][1], **REAL_SIZES[n][1]))
            for n in PROGRAMS}


def time_compiled(compiled, args, in_shardings, runs):
    """XLA's run time of a compiled (sharded) step: the arguments placed anew
    from numpy before every call (donation deletes them), outside the timing;
    one warm-up call, then the median of `runs` warm calls, each waited for
    with block_until_ready."""
    import jax
    times = []
    for _ in range(runs + 1):
        placed = jax.device_put(args, in_shardings)
        jax.block_until_ready(placed)
        start = time.perf_counter()
        jax.block_until_ready(compiled(*placed))
        times.append(time.perf_counter() - start)
    return {"warmup_s": times[0], "warm_median_s": statistics.median(times[1:]),
            "warm_runs": runs, "num_devices": jax.device_count(),
            "xla_flags": os.environ.get("XLA_FLAGS", ""), "cpu_count": os.cpu_count()}


# ---------------------------------------------------------------------------
# HLO text helpers.
# ---------------------------------------------------------------------------

_DTYPES = {"pred": "bool", "s8": "int8", "s16": "int16", "s32": "int32",
           "s64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
           "u64": "uint64", "f16": "float16", "bf16": "bfloat16",
           "f32": "float32", "f64": "float64"}


def _split_top(s):
    """Split s at the commas outside (), [], {}."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _match_close(s, i):
    """Index of the bracket closing the one at s[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = 0
    for j in range(i, len(s)):
        if s[j] in pairs:
            depth += 1
        elif s[j] in pairs.values():
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced: %r" % s[i:i + 80])


def _header(text):
    line = next(l for l in text.splitlines() if l.startswith("HloModule "))
    return line


def _header_attr(header, key):
    """The raw value of `key=` in the HloModule header line, or None."""
    m = re.search(r"[ ,]%s=" % re.escape(key), header)
    if not m:
        return None
    i = m.end()
    if header[i] in "({[":
        return header[i:_match_close(header, i) + 1]
    j = i
    while j < len(header) and header[j] not in ", ":
        j += 1
    return header[i:j]


def _parse_shape(s):
    """'f32[8,8]{1,0}' -> ('float32', [8, 8])."""
    s = re.sub(r"/\*.*?\*/", "", s).strip()       # /*index=5*/ comments
    m = re.fullmatch(r"([a-z0-9]+)\[([0-9,]*)\](\{.*\})?", s)
    if not m:
        raise ValueError("shape %r" % s)
    dims = [int(d) for d in m.group(2).split(",") if d]
    return _DTYPES.get(m.group(1), m.group(1)), dims


def _entry_layout(header):
    """entry_computation_layout -> ([param shapes], [result shapes])."""
    v = _header_attr(header, "entry_computation_layout")[1:-1]   # strip {}
    i = _match_close(v, 0)
    params = [_parse_shape(p) for p in _split_top(v[1:i])]
    res = v[i + 1:].strip()
    assert res.startswith("->"), v
    res = res[2:].strip()
    if res.startswith("("):
        results = [_parse_shape(r) for r in _split_top(res[1:_match_close(res, 0)])]
    else:
        results = [_parse_shape(res)]
    return params, results


def _computations(text):
    """[(name, is_entry, [instruction lines])]."""
    comps, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^(ENTRY )?%?([\w.\-]+) [^\n]*\{$", line)
        if m and not line.startswith(" "):
            cur = (m.group(2), bool(m.group(1)), [])
            comps.append(cur)
        elif line.startswith("}"):
            cur = None
        elif cur is not None and line.strip():
            cur[2].append(line)
    return comps


def _opcode(line):
    """The opcode of an HLO instruction line, or None."""
    m = re.match(r"^\s*(?:ROOT )?%?[\w.\-]+ = ", line)
    if not m:
        return None
    rest = line[m.end():]
    if rest.startswith("("):
        rest = rest[_match_close(rest, 0) + 1:]
    else:
        rest = rest.split(" ", 1)[1] if " " in rest else ""
    m = re.match(r"\s*([a-z][a-z0-9\-_]*)\(", rest)
    return m.group(1) if m else None


def _opcode_counts(text):
    counts = {}
    for _, _, lines in _computations(text):
        for line in lines:
            op = _opcode(line)
            if op:
                counts[op] = counts.get(op, 0) + 1
    return dict(sorted(counts.items()))


def _entry_param_shardings(text, n_params):
    """The `sharding={...}` strings of the ENTRY parameters, by number."""
    entry = next(lines for _, e, lines in _computations(text) if e)
    params = [None] * n_params
    for line in entry:
        m = re.search(r"\bparameter\((\d+)\)", line)
        if not m or _opcode(line) != "parameter":
            continue
        k = line.find("sharding={")
        if k >= 0:
            k += len("sharding=")
            params[int(m.group(1))] = line[k:_match_close(line, k) + 1]
    return params


def _tile_index(hlo_sharding, shape, logical_id):
    """The numpy index of the tile that `hlo_sharding` (an xla HloSharding)
    assigns to `logical_id`, computed from its tile assignment alone."""
    if hlo_sharding.is_replicated():
        return tuple(slice(None) for _ in shape)
    assert hlo_sharding.is_tiled(), hlo_sharding
    dims = list(hlo_sharding.tile_assignment_dimensions())
    devs = list(hlo_sharding.tile_assignment_devices())
    pos = devs.index(logical_id)
    coords = []
    for d in reversed(dims):
        coords.append(pos % d)
        pos //= d
    coords.reverse()
    idx = []
    for i, n in enumerate(shape):
        t = dims[i]
        chunk = -(-n // t)
        idx.append(slice(coords[i] * chunk, min(n, (coords[i] + 1) * chunk)))
    return tuple(idx)


def _spec_json(sharding):
    """PartitionSpec of a NamedSharding as JSON: one entry per dimension,
    null (replicated), an axis name, or a list of axis names."""
    spec = getattr(sharding, "spec", None)
    if spec is None:
        return None
    out = []
    for e in spec:
        if e is None or isinstance(e, str):
            out.append(e)
        else:
            out.append(list(e))
    return out


# ---------------------------------------------------------------------------
# Worker: runs in a fresh process with XLA_FLAGS set by the parent.
# ---------------------------------------------------------------------------


def worker(name, out_dir, dump_dir, buffer_assignment_max_bytes=BUFFER_ASSIGNMENT_MAX_BYTES,
           real_size=False, time_runs=0):
    """Generates program `name` into out_dir; with real_size its real-size
    variant, and with time_runs > 0 XLA's timing (time_compiled) goes into its
    manifest. With out_dir None it only compiles and prints that timing as
    JSON (speed_spmd.py)."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "--xla_force_host_platform_device_count=%d" % NUM_DEVICES not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=%d"
                                   % NUM_DEVICES).strip()
    import numpy as np
    import jax
    import jaxlib
    from jax.sharding import NamedSharding
    from jax._src.lib import xla_client as xc

    assert jax.device_count() == NUM_DEVICES, jax.devices()
    description, builder = program_table(real_size)[name]
    spec = builder()
    fn, args, mesh = spec["fn"], spec["args"], spec["mesh"]
    assert list(mesh.devices.flat) == jax.devices()[:mesh.devices.size]
    to_sharding = lambda p: NamedSharding(mesh, p)
    is_spec = lambda p: isinstance(p, jax.sharding.PartitionSpec)
    in_shardings = jax.tree.map(to_sharding, spec["in_specs"], is_leaf=is_spec)
    out_shardings = jax.tree.map(to_sharding, spec["out_specs"], is_leaf=is_spec)
    donate = tuple(spec.get("donate_argnums", ()))
    jit_kwargs = dict(in_shardings=in_shardings, out_shardings=out_shardings,
                      donate_argnums=donate,
                      keep_unused=True)  # entry params == arg leaves

    leaves = jax.tree_util.tree_leaves(args)
    in_np = [np.asarray(a) for a in leaves]
    in_sh_leaves = jax.tree_util.tree_leaves(in_shardings)
    assert len(in_sh_leaves) == len(in_np)

    # Flat parameter indices that belong to donated top-level arguments.
    donated_params, idx = [], 0
    for i, a in enumerate(args):
        n = len(jax.tree_util.tree_leaves(a))
        if i in donate:
            donated_params.extend(range(idx, idx + n))
        idx += n

    dev_args = jax.tree.map(jax.device_put, args, in_shardings)
    jitted = jax.jit(fn, **jit_kwargs)
    lowered = jitted.lower(*dev_args)
    compiled = lowered.compile()
    if out_dir is None:
        print(json.dumps(time_compiled(compiled, args, in_shardings, time_runs)))
        return
    # The dumps of this compilation, before anything else compiles.
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
    others = sorted({re.match(r"module_\d+\.([^.]+)", os.path.basename(p)).group(1)
                     for p in glob.glob(os.path.join(dump_dir, "module_*"))} - {mod})
    if others:
        print("%s: other modules in the dump directory (not copied): %s" % (name, others))

    with open(after) as f:
        after_text = f.read()
    with open(before) as f:
        before_text = f.read()

    mem = compiled.memory_analysis()
    ex = compiled.runtime_executable()

    # The device assignment, in logical-id order. XLA's LoadedExecutable
    # lists its addressable devices by logical id (replica-major); JAX's
    # device_list is the assignment it compiled with. Both must agree, and
    # for a mesh built from jax.devices() both are jax.devices().
    assignment = list(ex.local_devices())
    assert assignment == list(compiled._executable._unloaded_executable.device_list), \
        (assignment, compiled._executable._unloaded_executable.device_list)
    assert assignment == list(mesh.devices.flat), (assignment, mesh.devices)

    # Per-device input shards, taken before the call (donation deletes them).
    dev_in_leaves = jax.tree_util.tree_leaves(dev_args)
    in_shards = []          # [param][k] -> np array held by logical id k
    for a in dev_in_leaves:
        by_dev = {s.device: np.asarray(s.data) for s in a.addressable_shards}
        in_shards.append([by_dev[d] for d in assignment])

    outs = compiled(*dev_args)          # the one compilation that was dumped
    out_arrays = jax.tree_util.tree_leaves(outs)
    out_np = [np.asarray(o) for o in out_arrays]
    out_shards = []
    for o in out_arrays:
        by_dev = {s.device: np.asarray(s.data) for s in o.addressable_shards}
        out_shards.append([by_dev[d] for d in assignment])
    out_sh_leaves = jax.tree_util.tree_leaves(compiled.output_shardings)
    comp_in_sh = jax.tree_util.tree_leaves(compiled.input_shardings[0])

    mem_json = {}
    for attr in sorted(dir(mem)):
        if attr.startswith("_"):
            continue
        v = getattr(mem, attr)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            mem_json[attr] = v

    header = _header(after_text)
    num_partitions = int(_header_attr(header, "num_partitions") or 1)
    replica_count = int(_header_attr(header, "replica_count") or 1)
    assert num_partitions * replica_count == NUM_DEVICES, header[:200]
    param_shapes, result_shapes = _entry_layout(header)
    if len(param_shapes) != len(in_np):
        raise SystemExit("%s: ENTRY has %d parameters, %d argument leaves" %
                         (name, len(param_shapes), len(in_np)))
    if len(result_shapes) != len(out_np):
        raise SystemExit("%s: ENTRY has %d results, %d output leaves" %
                         (name, len(result_shapes), len(out_np)))
    # XLA's shardings of the entry parameters and results: the executable's
    # own, which must equal the `sharding={...}` of the optimized module's
    # parameters (its ROOT carries none).
    param_hlo_sh = [xc.HloSharding.from_proto(o) for o in ex.get_parameter_shardings()]
    result_hlo_sh = [xc.HloSharding.from_proto(o) for o in ex.get_output_shardings()]
    assert len(param_hlo_sh) == len(in_np) and len(result_hlo_sh) == len(out_np)
    text_param_sh = _entry_param_shardings(after_text, len(in_np))
    for i, (t, h) in enumerate(zip(text_param_sh, param_hlo_sh)):
        if t is None or xc.HloSharding.from_string(t) != h:
            raise SystemExit("%s: parameter %d: module sharding %s, executable %s" %
                             (name, i, t, h))

    def check_shards(kind, i, global_np, shards, module_shape, hlo_sh, jax_sh):
        dtype, dims = module_shape
        if str(global_np.dtype) != dtype:
            raise SystemExit("%s: %s %d dtype %s, module %s" % (name, kind, i, global_np.dtype, dtype))
        for k, shard in enumerate(shards):
            if list(shard.shape) != dims:
                raise SystemExit("%s: %s %d on logical device %d has shape %s, module %s" %
                                 (name, kind, i, k, shard.shape, dims))
            # The tile the module's sharding annotation gives logical id k.
            ref = global_np[_tile_index(hlo_sh, global_np.shape, k)]
            if ref.shape != shard.shape or not np.array_equal(ref, shard, equal_nan=True):
                raise SystemExit("%s: %s %d on logical device %d is not the tile of %s" %
                                 (name, kind, i, k, hlo_sh))
            # ... and the one JAX's sharding gives that device.
            jidx = jax_sh.devices_indices_map(global_np.shape)[assignment[k]]
            if not np.array_equal(global_np[jidx], shard, equal_nan=True):
                raise SystemExit("%s: %s %d on logical device %d differs from JAX's index %s" %
                                 (name, kind, i, k, jidx))

    for i in range(len(in_np)):
        check_shards("parameter", i, in_np[i], in_shards[i], param_shapes[i],
                     param_hlo_sh[i], in_sh_leaves[i])
    for i in range(len(out_np)):
        check_shards("output", i, out_np[i], out_shards[i], result_shapes[i],
                     result_hlo_sh[i], out_sh_leaves[i])

    # Replicated outputs must be the same on every device.
    replicated_outputs = []
    for i, sh in enumerate(out_sh_leaves):
        if sh.is_fully_replicated:
            replicated_outputs.append(i)
            for k in range(1, NUM_DEVICES):
                if not np.array_equal(out_shards[i][0], out_shards[i][k]):
                    raise SystemExit("%s: replicated output %d differs on device %d" % (name, i, k))

    # Against the unpartitioned computation.
    reference = spec.get("reference")
    if reference is not None:
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(reference(*args))]
        assert len(want) == len(out_np)
        rtol = spec.get("reference_rtol", 1e-4)
        for i, (g, w) in enumerate(zip(out_np, want)):
            if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=rtol):
                raise SystemExit("%s: output %d differs from the reference by %g" %
                                 (name, i, float(np.max(np.abs(g - w)))))

    opcodes = _opcode_counts(after_text)
    opcodes_before = _opcode_counts(before_text)
    collectives = [op for op in COLLECTIVE_OPCODES if op in opcodes]
    for op in spec.get("check", []):
        if op not in opcodes:
            raise SystemExit("%s: optimized module has no %s (opcodes: %s)" %
                             (name, op, sorted(opcodes)))

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

    for k in range(NUM_DEVICES):
        d = os.path.join(out_dir, "device%d" % k)
        os.makedirs(d)
        for i in range(len(in_np)):
            np.save(os.path.join(d, "input_%d.npy" % i), in_shards[i][k])
        for i in range(len(out_np)):
            np.save(os.path.join(d, "output_%d.npy" % i), out_shards[i][k])
    with open(os.path.join(out_dir, "memory_analysis.json"), "w") as f:
        json.dump(mem_json, f, indent=2, sort_keys=True)
        f.write("\n")

    def desc(kind, i, global_np, module_shape, sh, hlo_sh):
        return {"file": "%s_%d.npy" % (kind, i),
                "dtype": str(global_np.dtype),
                "global_shape": list(global_np.shape),
                "shard_shape": module_shape[1],
                "partition_spec": _spec_json(sh),
                "hlo_sharding": str(hlo_sh),
                "replicated": bool(sh.is_fully_replicated)}

    manifest = {
        "program": name,
        "description": description,
        "jax_version": jax.__version__,
        "jaxlib_version": jaxlib.__version__,
        "platform": jax.devices()[0].platform,
        "seed": SEED,
        "jitted_function": fn.__name__,
        "hlo_module": mod,
        "num_devices": NUM_DEVICES,
        "replica_count": replica_count,
        "num_partitions": num_partitions,
        "header_replica_count": _header_attr(header, "replica_count"),
        "header_num_partitions": _header_attr(header, "num_partitions"),
        "mesh": {"axis_names": list(mesh.axis_names),
                 "axis_sizes": [int(s) for s in mesh.devices.shape],
                 "device_ids": np.vectorize(lambda d: d.id)(mesh.devices).tolist()},
        "device_assignment": [d.id for d in assignment],
        "logical_device": "device<k>/ holds what the device at position k of "
                          "device_assignment (logical id k = replica * "
                          "num_partitions + partition) holds",
        "files": copied,
        "device_dirs": ["device%d" % k for k in range(NUM_DEVICES)],
        "contains_stack_frames": ("\nStackFrames\n" in after_text),
        "contains_file_names": ("\nFileNames\n" in after_text),
        "num_parameters": len(in_np),
        "num_outputs": len(out_np),
        "inputs": [desc("input", i, in_np[i], param_shapes[i], in_sh_leaves[i], param_hlo_sh[i])
                   for i in range(len(in_np))],
        "outputs": [desc("output", i, out_np[i], result_shapes[i], out_sh_leaves[i],
                         result_hlo_sh[i]) for i in range(len(out_np))],
        "replicated_outputs": replicated_outputs,
        "donate_argnums": list(donate),
        "donated_parameters": donated_params,
        "collectives": collectives,
        "collective_counts": {op: opcodes[op] for op in collectives},
        "collectives_before_optimizations":
            [op for op in COLLECTIVE_OPCODES if op in opcodes_before],
        "opcodes": opcodes,
        "memory_analysis": "memory_analysis.json",
    }
    assert [_spec_json(s) for s in comp_in_sh] == [m["partition_spec"] for m in manifest["inputs"]]
    if time_runs:
        manifest["xla_timing"] = time_compiled(compiled, args, in_shardings, time_runs)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print("%s: replica_count=%d num_partitions=%d, %d params, %d outputs; collectives: %s; "
          "other opcodes of note: %s" % (
              name, replica_count, num_partitions, len(in_np), len(out_np),
              ", ".join("%s x%d" % (op, opcodes[op]) for op in collectives) or "none",
              ", ".join(op for op in opcodes
                        if op == "custom-call" or "ynn" in op or "onednn" in op) or "none"))


# ---------------------------------------------------------------------------
# Parent: one subprocess per program, then the corpus README.
# ---------------------------------------------------------------------------


def _spec_str(spec):
    if spec is None:
        return "?"
    parts = []
    for e in spec:
        if e is None:
            parts.append("None")
        elif isinstance(e, str):
            parts.append("'%s'" % e)
        else:
            parts.append("(%s)" % ",".join("'%s'" % a for a in e))
    return "P(%s)" % ",".join(parts)


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
        mesh = ", ".join("%s=%d" % (a, s) for a, s in
                         zip(m["mesh"]["axis_names"], m["mesh"]["axis_sizes"]))
        rows.append("| `%s` | %s | %d | %d | %s | %s | %d | %d | %d | %d | %s |" % (
            name, mesh, m["replica_count"], m["num_partitions"],
            " ".join(_spec_str(i["partition_spec"]) for i in m["inputs"]),
            ", ".join("%s x%d" % (c, m["collective_counts"][c]) for c in m["collectives"]),
            mem.get("argument_size_in_bytes", -1), mem.get("output_size_in_bytes", -1),
            mem.get("alias_size_in_bytes", -1), mem.get("temp_size_in_bytes", -1),
            m["description"]))
    text = """# SPMD-partitioned JAX HLO corpus

Generated by hand (JAX is not a test dependency) with

    .venv-jax/bin/python bench/jax_corpus/generate_spmd.py --out tests/corpus_spmd
    .venv-jax/bin/python bench/jax_corpus/generate_spmd.py --out tests/corpus_spmd --only <program>

using %s on XLA:CPU with 4 host devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4`, which the script sets
itself for each program's worker process), seed %d. Last generated %s.

Each directory holds, for the single jitted function `jit_<fn>` (sharded with
`jax.jit(in_shardings=..., out_shardings=...)` over a `Mesh` built from
`np.array(jax.devices()).reshape(...)`, some through `jax.shard_map`):

* `module_0000.jit_<fn>.before_optimizations.txt` and
  `module_0000.jit_<fn>.cpu_after_optimizations.txt`: XLA's own dumps
  (`--xla_dump_to --xla_dump_hlo_as_text`), byte-for-byte. The optimized
  module is the SPMD-partitioned per-device program (`num_partitions=4` in
  its `HloModule` header, no `replica_count`, i.e. 1) and its
  `entry_computation_layout` has the per-device shard shapes;
* `module_0000.jit_<fn>.cpu_after_optimizations-buffer-assignment.txt`:
  XLA:CPU's buffer assignment of that module (one device's);
* `memory_analysis.json`: `compiled.memory_analysis()` of the same
  compilation, per device;
* `device<k>/input_<i>.npy`: the shard of entry parameter `i` (parameter
  number `i` of the optimized ENTRY, = flattened argument leaf `i`) that
  device `k` holds, for k = 0..3;
* `device<k>/output_<i>.npy`: XLA:CPU's shard of output `i` (element `i` of
  the ENTRY ROOT tuple, = flattened result leaf `i`) on device `k`;
* `manifest.json`: versions, seed, `num_devices`, `replica_count` and
  `num_partitions` (as in the optimized module's header; absent means 1),
  the mesh, the device assignment, for every input and output its global
  shape, shard shape, dtype, `PartitionSpec` and the optimized module's HLO
  `sharding`, the collective opcodes of the optimized module
  (`collectives`, `collective_counts`), all its opcodes (`opcodes`), the
  donated parameters and the file names.

**Device k** is XLA's logical device id k: the device at position k of the
compiled executable's device assignment, numbered replica * num_partitions +
partition, so here SPMD partition k (`partition-id` returns k on it). The
meshes are built from `jax.devices()` in order, so the device assignment is
CPU devices 0, 1, 2, 3 and logical id k is JAX's `CpuDevice(id=k)`. A
replicated array gives every device the full array; for a mesh axis that an
array is not sharded on, the devices along it hold the same tile. The script
checks, for every input and output and every k, that the shard's shape is the
optimized module's parameter/result shape (`entry_computation_layout`), that
it is the tile that XLA's sharding assigns to logical id k (computed from the
tile assignment alone; for parameters the `sharding={...}` of the optimized
module's ENTRY parameters, which the script checks equal the executable's
`get_parameter_shardings()`; for outputs the executable's
`get_output_shardings()`, since the optimized ROOT carries no sharding) and
the one JAX's sharding assigns to that device, that replicated outputs are
equal on all devices, and that the outputs match the same computation run
unpartitioned on one device (or in numpy). The manifest's `hlo_sharding` is
that XLA sharding.

Sizes are per-device bytes from `memory_analysis()`; the specs are the
inputs' `PartitionSpec`s in parameter order.

| program | mesh | replicas | partitions | input specs | collectives (optimized) | argument | output | alias | temp | description |
|---|---|---|---|---|---|---|---|---|---|---|
%s
""" % (", ".join(sorted(versions)), SEED,
       datetime.date.today().isoformat(), "\n".join(rows))
    write_readme_keeping_sections(out_root, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="tests/corpus_spmd")
    ap.add_argument("--only", action="append", help="program name (repeatable)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--real-size", action="store_true",
                    help="the real-size variants of REAL_SIZES (benchmark only, not committed); "
                         "their manifests hold XLA's warm median (xla_timing)")
    ap.add_argument("--runs", type=int, default=REAL_SIZE_TIMED_RUNS,
                    help="--real-size and --time: XLA's timed warm runs (default %(default)s)")
    ap.add_argument("--time", metavar="PROGRAM",
                    help="only compile PROGRAM and print XLA's timing as JSON (speed_spmd.py)")
    ap.add_argument("--buffer-assignment-max-bytes", type=int, default=BUFFER_ASSIGNMENT_MAX_BYTES,
                    help="copy XLA's buffer-assignment dump only up to this size")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    a = ap.parse_args()

    table = program_table(a.real_size)
    time_runs = a.runs if a.real_size else 0
    if a.list:
        for n, (d, _) in table.items():
            print("%-18s %s" % (n, d))
        return
    if a.time:
        worker(a.time, None, None, real_size=a.real_size, time_runs=a.runs)
        return
    if a.worker:
        # (The call's text stays that of the committed corpus's dumps' stack frames.)
        invoke = functools.partial(worker, real_size=a.real_size, time_runs=time_runs)
        invoke(a.worker, a.out, a.dump, a.buffer_assignment_max_bytes)
        return

    names = a.only or list(table)
    for n in names:
        if n not in table:
            raise SystemExit("unknown program %r; --list shows them" % n)
    out_root = os.path.abspath(a.out)
    os.makedirs(out_root, exist_ok=True)
    extra = ["--real-size", "--runs", str(a.runs)] if a.real_size else []
    failed = run_workers(os.path.abspath(__file__), names, out_root, a.buffer_assignment_max_bytes,
                         xla_flags="--xla_force_host_platform_device_count=%d" % NUM_DEVICES,
                         prefix="hmo_jax_spmd_dump_", extra_args=extra)
    if not a.real_size:
        write_readme(out_root)
    if failed:
        raise SystemExit("failed: " + ", ".join(failed))

if __name__ == "__main__":
    main()
