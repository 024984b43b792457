"""Translates HLO text into a JAX function, so that XLA:CPU can compile it.

The jaxlib wheel exposes no HLO-text parser to Python, so this module parses
the text itself and replays each instruction as the jax.lax call that lowers
to the same HLO/StableHLO operation. `jax.jit(fn).lower(*args).compile()` then
has XLA:CPU compile the same computation that hmo compiles from the file.

Scope: the instructions of XLA's CPU benchmark models graphsage_tf.hlo and
ssd_mobilenet_tf.hlo (parameter, constant, broadcast, reshape, transpose,
convert, elementwise add/subtract/multiply/divide/maximum/minimum, rsqrt,
logistic, exponential, clamp, dot, gather, concatenate, slice, reduce with any
scalar to_apply computation, convolution, tuple, get-tuple-element) plus a
few trivial elementwise ones. Anything else raises NotImplementedError naming
the opcode. Layouts (`{1,0}`) are ignored: they do not change an HLO
program's values, and XLA picks its own layouts when it compiles.

Elided constants (`constant({...})`) and the arguments get values from the
same rule as hmo's execution/random_literals (FillElidedConstants,
MakeRandomArguments): splitmix64 streams seeded per constant name / per
parameter number, floats uniform in [-1, 1) on a grid of 2^-(p-1) (p = the
type's significand digits), integers uniform in [0, 16). The same seed
therefore gives both programs bit-identical inputs.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Sequence

import numpy as np

try:  # bfloat16 comes with jax (ml_dtypes); importing it here keeps numpy-only use possible.
    import ml_dtypes

    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - jax always installs ml_dtypes
    _BF16 = None

# --------------------------------------------------------------------------
# Shapes and element types
# --------------------------------------------------------------------------

_ELEMENT_TYPES = {
    "pred": np.dtype(np.bool_),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
if _BF16 is not None:
    _ELEMENT_TYPES["bf16"] = _BF16

def _is_floating(dtype: np.dtype) -> bool:
    """True for IEEE-like float dtypes, bfloat16 included (numpy calls its kind 'V')."""
    return dtype.kind in "fc" or (_BF16 is not None and dtype == _BF16)


# Significand digits including the implicit bit (as hmo's float_digits.h).
_SIGNIFICAND_DIGITS = {"f64": 53, "f32": 24, "f16": 11, "bf16": 8}


@dataclasses.dataclass(frozen=True)
class Shape:
    """An array shape (element_type, dims) or a tuple of shapes."""

    element_type: str = ""
    dims: tuple[int, ...] = ()
    tuple_shapes: tuple["Shape", ...] | None = None

    @property
    def is_tuple(self) -> bool:
        return self.tuple_shapes is not None

    @property
    def dtype(self) -> np.dtype:
        if self.element_type not in _ELEMENT_TYPES:
            raise NotImplementedError(f"element type {self.element_type}")
        return _ELEMENT_TYPES[self.element_type]

    def byte_size(self) -> int:
        if self.is_tuple:
            return sum(s.byte_size() for s in self.tuple_shapes)
        return int(np.prod(self.dims, dtype=np.int64)) * self.dtype.itemsize

    def __str__(self) -> str:
        if self.is_tuple:
            return "(" + ", ".join(str(s) for s in self.tuple_shapes) + ")"
        return f"{self.element_type}[{','.join(map(str, self.dims))}]"


def _matching_close(text: str, start: int) -> int:
    """Index of the bracket closing text[start], skipping quoted strings."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    depth = 0
    in_quote = False
    i = start
    while i < len(text):
        c = text[i]
        if in_quote:
            if c == "\\":
                i += 1
            elif c == '"':
                in_quote = False
        elif c == '"':
            in_quote = True
        elif c in pairs:
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced brackets in: {text[start:start + 80]}")


def _split_top_level(text: str, sep: str = ",") -> list[str]:
    """Splits on `sep` outside brackets and quotes."""
    parts, depth, in_quote, current = [], 0, False, []
    i = 0
    while i < len(text):
        c = text[i]
        if in_quote:
            if c == "\\" and i + 1 < len(text):
                current.append(c)
                i += 1
                c = text[i]
            elif c == '"':
                in_quote = False
        elif c == '"':
            in_quote = True
        elif c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


_ARRAY_SHAPE = re.compile(r"([a-z][a-z0-9]*)\[([0-9,\s]*)\](\{[^}]*\})?")


def parse_shape(text: str) -> tuple[Shape, int]:
    """Parses a shape at the start of `text`; returns it and the characters used."""
    stripped = len(text) - len(text.lstrip())
    text = text.lstrip()
    if text.startswith("("):
        end = _matching_close(text, 0)
        elements = [parse_shape(p)[0] for p in _split_top_level(text[1:end])]
        return Shape(tuple_shapes=tuple(elements)), stripped + end + 1
    match = _ARRAY_SHAPE.match(text)
    if not match:
        raise ValueError(f"cannot parse shape: {text[:60]}")
    dims = tuple(int(d) for d in match.group(2).replace(" ", "").split(",") if d)
    return Shape(match.group(1), dims), stripped + match.end()


# --------------------------------------------------------------------------
# Module structure
# --------------------------------------------------------------------------


@dataclasses.dataclass
class Instruction:
    name: str
    shape: Shape
    opcode: str
    operands: list[str]  # operand names; for `constant`, the literal text
    attributes: dict[str, str]
    is_root: bool = False


@dataclasses.dataclass
class Computation:
    name: str
    is_entry: bool
    instructions: list[Instruction] = dataclasses.field(default_factory=list)

    @property
    def root(self) -> Instruction:
        for instruction in self.instructions:
            if instruction.is_root:
                return instruction
        return self.instructions[-1]

    def parameters(self) -> list[Instruction]:
        params = [i for i in self.instructions if i.opcode == "parameter"]
        return sorted(params, key=lambda i: int(i.operands[0]))


@dataclasses.dataclass
class Module:
    name: str
    computations: dict[str, Computation]
    entry: Computation


# `[ENTRY] %name (p: f32[2]) -> f32[2] {`, or without the signature: `ENTRY name {`.
_COMPUTATION_HEADER = re.compile(r"^\s*(ENTRY\s+)?%?([\w.\-]+)\s*(?:\(.*\)\s*->\s*.*)?\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$")
_COMMENT = re.compile(r"/\*.*?\*/")


def _parse_instruction(line: str) -> Instruction:
    match = _INSTRUCTION.match(line)
    if not match:
        raise ValueError(f"cannot parse instruction: {line[:100]}")
    is_root, name, rest = bool(match.group(1)), match.group(2), match.group(3)
    shape, used = parse_shape(rest)
    rest = rest[used:].lstrip()
    opcode_match = re.match(r"([\w\-]+)\(", rest)
    if not opcode_match:
        raise ValueError(f"{name}: cannot find the opcode in: {rest[:80]}")
    opcode = opcode_match.group(1)
    open_paren = opcode_match.end() - 1
    close_paren = _matching_close(rest, open_paren)
    operand_text = _COMMENT.sub("", rest[open_paren + 1:close_paren])
    if opcode in ("constant", "parameter"):
        operands = [operand_text.strip()]
    else:
        # Operands are `%name`, or `type %name` in some dumps.
        operands = [p.split()[-1].lstrip("%") for p in _split_top_level(operand_text)]
    attributes = {}
    for item in _split_top_level(rest[close_paren + 1:].lstrip(", ")):
        key, _, value = item.partition("=")
        attributes[key.strip()] = value.strip()
    return Instruction(name, shape, opcode, operands, attributes, is_root)


def parse_module(text: str) -> Module:
    """Parses HLO module text (one module) into computations and instructions."""
    name = ""
    computations: dict[str, Computation] = {}
    entry = None
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if line.startswith("HloModule"):
            name = line.split()[1].rstrip(",")
            continue
        if current is None:
            header = _COMPUTATION_HEADER.match(line)
            if header:
                current = Computation(header.group(2), bool(header.group(1)))
                computations[current.name] = current
                if current.is_entry:
                    entry = current
            continue
        if line == "}":
            current = None
            continue
        current.instructions.append(_parse_instruction(line))
    if entry is None:
        if not computations:
            raise ValueError("no computation found")
        entry = list(computations.values())[-1]  # the printer puts the entry last
    return Module(name, computations, entry)


# --------------------------------------------------------------------------
# Deterministic values (hmo's random_literals, reimplemented in numpy)
# --------------------------------------------------------------------------

_MASK64 = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def derive_seed(seed: int, salt: int | str) -> int:
    """hmo::DeriveSeed: a sub-stream seed; string salts are hashed with FNV-1a."""
    if isinstance(salt, str):
        h = 0xCBF29CE484222325
        for byte in salt.encode():
            h = ((h ^ byte) * 0x100000001B3) & _MASK64
        salt = h
    inner = _mix64((seed + _GOLDEN_GAMMA) & _MASK64)
    return _mix64((inner + salt * 0xD6E8FEB86659FD93 + 1) & _MASK64)


def _splitmix64_stream(seed: int, count: int) -> np.ndarray:
    """The first `count` outputs of splitmix64 seeded with `seed`, vectorized."""
    steps = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + steps * np.uint64(_GOLDEN_GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def random_array(shape: Shape, seed: int) -> np.ndarray:
    """hmo::MakeRandomLiteral for an array shape: same seed, same values."""
    count = int(np.prod(shape.dims, dtype=np.int64))
    bits = _splitmix64_stream(seed, count)
    kind = shape.element_type
    if kind == "pred":
        values = (bits >> np.uint64(63)).astype(np.bool_)
    elif kind in _SIGNIFICAND_DIGITS:
        digits = _SIGNIFICAND_DIGITS[kind]
        r = (bits >> np.uint64(64 - digits)).astype(np.int64) - (1 << (digits - 1))
        values = np.ldexp(r.astype(np.float64), -(digits - 1)).astype(shape.dtype)
    elif kind[0] in "su" and kind[1:].isdigit():
        value_bits = int(kind[1:]) - (1 if kind[0] == "s" else 0)
        maximum = 15 if value_bits >= 4 else (1 << value_bits) - 1
        values = (bits % np.uint64(maximum + 1)).astype(shape.dtype)
    else:
        raise NotImplementedError(f"random values for element type {kind}")
    return values.reshape(shape.dims)


def random_arguments(module: Module, seed: int) -> list[np.ndarray]:
    """hmo::MakeRandomArguments: parameter i from derive_seed(seed, i)."""
    args = []
    for parameter in module.entry.parameters():
        number = int(parameter.operands[0])
        if parameter.shape.is_tuple:
            raise NotImplementedError(f"tuple-shaped parameter {parameter.name}")
        args.append(random_array(parameter.shape, derive_seed(seed, number)))
    return args


def parse_literal(text: str, shape: Shape) -> np.ndarray:
    """A printed (non-elided) array literal: `0`, `1.5e-3`, `{1, 2}`, `{{1,2},{3,4}}`."""
    tokens = [t for t in re.split(r"[\s,{}]+", text) if t]
    words = {"true": 1, "false": 0, "inf": np.inf, "-inf": -np.inf, "nan": np.nan, "-nan": np.nan}
    floating = _is_floating(shape.dtype)
    values = [words[t] if t in words else float(t) if floating else int(t, 0) for t in tokens]
    return np.asarray(values, dtype=np.float64 if floating else None).astype(shape.dtype) \
        .reshape(shape.dims)


def constant_values(module: Module, seed: int) -> tuple[dict[str, np.ndarray], int]:
    """Values of every constant by name: printed literals parsed, elided ones
    (`{...}`) filled with random_array(shape, derive_seed(seed, name)) exactly
    as hmo::FillElidedConstants. Returns the map and how many were elided."""
    values, elided = {}, 0
    for computation in module.computations.values():
        for instruction in computation.instructions:
            if instruction.opcode != "constant":
                continue
            literal = instruction.operands[0]
            if literal == "{...}":
                values[instruction.name] = random_array(
                    instruction.shape, derive_seed(seed, instruction.name))
                elided += 1
            else:
                values[instruction.name] = parse_literal(literal, instruction.shape)
    return values, elided


# --------------------------------------------------------------------------
# Attribute parsing
# --------------------------------------------------------------------------


def _int_list(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    return tuple(int(x) for x in re.findall(r"-?\d+", text))


def _slice_spec(text: str) -> tuple[list[int], list[int], list[int]]:
    starts, limits, strides = [], [], []
    for part in re.findall(r"\[([^\]]*)\]", text):
        numbers = [int(x) for x in part.split(":")]
        starts.append(numbers[0])
        limits.append(numbers[1])
        strides.append(numbers[2] if len(numbers) > 2 else 1)
    return starts, limits, strides


@dataclasses.dataclass
class Window:
    size: list[int]
    stride: list[int]
    padding: list[tuple[int, int]]
    lhs_dilate: list[int]
    rhs_dilate: list[int]


def parse_window(text: str, spatial_rank: int) -> Window:
    """`{size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1}`."""
    fields = dict(item.split("=", 1) for item in text.strip("{} ").split())
    ones = [1] * spatial_rank

    def dims(key: str) -> list[int]:
        return [int(x) for x in fields[key].split("x")] if key in fields else list(ones)

    padding = [(0, 0)] * spatial_rank
    if "pad" in fields:
        padding = [tuple(int(x) for x in p.split("_")) for p in fields["pad"].split("x")]
    if "rhs_reversal" in fields and any(int(x) for x in fields["rhs_reversal"].split("x")):
        raise NotImplementedError("convolution with rhs_reversal")
    return Window(dims("size"), dims("stride"), padding, dims("lhs_dilate"), dims("rhs_dilate"))


def parse_dim_labels(text: str):
    """`b01f_01io->b01f` -> jax.lax.ConvDimensionNumbers (dimension indices
    of batch/feature/spatial dims for lhs, out-feature/in-feature/spatial for
    rhs, batch/feature/spatial for the output)."""
    from jax import lax

    lhs, rest = text.split("_", 1)
    rhs, out = rest.split("->")

    def spec(labels: str, first: str, second: str) -> tuple[int, ...]:
        spatial = sorted((c for c in labels if c.isdigit()), key=int)
        return (labels.index(first), labels.index(second)) + tuple(labels.index(c) for c in spatial)

    return lax.ConvDimensionNumbers(lhs_spec=spec(lhs, "b", "f"), rhs_spec=spec(rhs, "o", "i"),
                                    out_spec=spec(out, "b", "f"))


# --------------------------------------------------------------------------
# Translation to jax.lax
# --------------------------------------------------------------------------


def _elementwise_ops():
    from jax import lax

    unary = {
        "abs": lax.abs, "negate": lax.neg, "exponential": lax.exp, "log": lax.log,
        "rsqrt": lax.rsqrt, "sqrt": lax.sqrt, "tanh": lax.tanh, "logistic": lax.logistic,
        "copy": lambda x: x, "floor": lax.floor, "ceil": lax.ceil,
    }
    binary = {
        "add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "divide": lax.div,
        "maximum": lax.max, "minimum": lax.min, "power": lax.pow,
    }
    return unary, binary


class _Translator:
    """Evaluates one computation instruction by instruction with jax.lax."""

    def __init__(self, module: Module, constants: dict[str, np.ndarray]):
        self.module = module
        self.constants = constants
        self.unary, self.binary = _elementwise_ops()

    def run(self, computation: Computation, args: Sequence) -> object:
        by_name = {i.name: i for i in computation.instructions}
        values: dict[str, object] = {}
        # Iterative post-order from the root, so that text order does not matter
        # and dead instructions are not emitted.
        stack = [(computation.root.name, False)]
        while stack:
            name, expanded = stack.pop()
            if name in values:
                continue
            instruction = by_name[name]
            if expanded or instruction.opcode in ("constant", "parameter"):
                values[name] = self.emit(instruction, [values[o] for o in self._operand_names(instruction)], args)
                continue
            stack.append((name, True))
            for operand in reversed(self._operand_names(instruction)):
                if operand not in values:
                    stack.append((operand, False))
        return values[computation.root.name]

    @staticmethod
    def _operand_names(instruction: Instruction) -> list[str]:
        return [] if instruction.opcode in ("constant", "parameter") else instruction.operands


    def emit(self, inst: Instruction, ops: list, args: Sequence):
        from jax import lax

        op, attrs, shape = inst.opcode, inst.attributes, inst.shape
        if op == "parameter":
            return args[int(inst.operands[0])]
        if op == "constant":
            return self.constants[inst.name]
        if op in self.unary:
            return self.unary[op](ops[0])
        if op in self.binary:
            return self.binary[op](ops[0], ops[1])
        if op == "clamp":  # clamp(min, operand, max), same order as lax.clamp
            return lax.clamp(ops[0], ops[1], ops[2])
        if op == "convert":
            return lax.convert_element_type(ops[0], shape.dtype)
        if op == "broadcast":
            return lax.broadcast_in_dim(ops[0], shape.dims, _int_list(attrs.get("dimensions")))
        if op == "reshape":
            return lax.reshape(ops[0], shape.dims)
        if op == "transpose":
            return lax.transpose(ops[0], _int_list(attrs["dimensions"]))
        if op == "concatenate":
            return lax.concatenate(ops, _int_list(attrs["dimensions"])[0])
        if op == "slice":
            starts, limits, strides = _slice_spec(attrs["slice"])
            return lax.slice(ops[0], starts, limits, strides)
        if op == "tuple":
            return tuple(ops)
        if op == "get-tuple-element":
            return ops[0][int(attrs["index"])]
        if op == "dot":
            return self._dot(inst, ops)
        if op == "gather":
            return self._gather(inst, ops)
        if op == "reduce":
            return self._reduce(inst, ops)
        if op == "convolution":
            return self._convolution(inst, ops)
        raise NotImplementedError(f"hlo_to_jax: opcode '{op}' (instruction {inst.name}) is not translated")

    def _dot(self, inst: Instruction, ops: list):
        from jax import lax

        a = inst.attributes
        dimension_numbers = (
            (_int_list(a.get("lhs_contracting_dims")), _int_list(a.get("rhs_contracting_dims"))),
            (_int_list(a.get("lhs_batch_dims")), _int_list(a.get("rhs_batch_dims"))),
        )
        return lax.dot_general(ops[0], ops[1], dimension_numbers,
                               preferred_element_type=inst.shape.dtype)

    def _gather(self, inst: Instruction, ops: list):
        from jax import lax

        a = inst.attributes
        operand, indices = ops
        index_vector_dim = int(a["index_vector_dim"])
        batching = list(_int_list(a.get("start_indices_batching_dims")))
        # lax.gather wants the index vector as the last dimension of the
        # indices; HLO allows any position, or rank (an implicit size-1 dim).
        if index_vector_dim == indices.ndim:
            indices = lax.expand_dims(indices, (indices.ndim,))
        elif index_vector_dim != indices.ndim - 1:
            perm = [d for d in range(indices.ndim) if d != index_vector_dim] + [index_vector_dim]
            indices = lax.transpose(indices, perm)
            batching = [d - 1 if d > index_vector_dim else d for d in batching]
        dimension_numbers = lax.GatherDimensionNumbers(
            offset_dims=_int_list(a.get("offset_dims")),
            collapsed_slice_dims=_int_list(a.get("collapsed_slice_dims")),
            start_index_map=_int_list(a.get("start_index_map")),
            operand_batching_dims=_int_list(a.get("operand_batching_dims")),
            start_indices_batching_dims=tuple(batching),
        )
        # HLO gather clamps out-of-range starts itself; PROMISE_IN_BOUNDS
        # lowers to the bare gather with no extra index arithmetic.
        return lax.gather(operand, indices, dimension_numbers, _int_list(a["slice_sizes"]),
                          indices_are_sorted=a.get("indices_are_sorted") == "true",
                          mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)

    def _reduce(self, inst: Instruction, ops: list):
        from jax import lax

        half = len(ops) // 2
        to_apply = self.module.computations[inst.attributes["to_apply"].lstrip("%")]
        dimensions = _int_list(inst.attributes["dimensions"])
        if half == 1:
            # to_apply(accumulator, element) on scalars, traced into the reduce body.
            return lax.reduce(ops[0], ops[1], lambda x, y: self.run(to_apply, (x, y)), dimensions)
        # Variadic: lax passes the accumulators and the elements as two tuples.
        return tuple(lax.reduce(tuple(ops[:half]), tuple(ops[half:]),
                                lambda xs, ys: tuple(self.run(to_apply, tuple(xs) + tuple(ys))),
                                dimensions))

    def _convolution(self, inst: Instruction, ops: list):
        from jax import lax

        a = inst.attributes
        dimension_numbers = parse_dim_labels(a["dim_labels"])
        spatial_rank = len(dimension_numbers.lhs_spec) - 2
        window = parse_window(a.get("window", "{}"), spatial_rank)
        return lax.conv_general_dilated(
            ops[0], ops[1], window_strides=window.stride, padding=window.padding,
            lhs_dilation=window.lhs_dilate, rhs_dilation=window.rhs_dilate,
            dimension_numbers=dimension_numbers,
            feature_group_count=int(a.get("feature_group_count", 1)),
            batch_group_count=int(a.get("batch_group_count", 1)),
            preferred_element_type=inst.shape.dtype)


def to_jax_function(module: Module, constants: dict[str, np.ndarray]) -> Callable:
    """The entry computation as a Python function of its parameters (in
    parameter-number order), built from jax.lax calls; jit it to compile.
    Constants are closed over, so XLA sees them as constants, as in the HLO."""
    translator = _Translator(module, constants)
    return lambda *args: translator.run(module.entry, args)


def check_result(module: Module, result) -> list[str]:
    """Problems with `result` against the entry root's shape: wrong shape or
    element type, or non-finite values. Empty when it is fine."""
    problems = []

    def check(shape: Shape, value, where: str) -> None:
        if shape.is_tuple:
            if not isinstance(value, (tuple, list)) or len(value) != len(shape.tuple_shapes):
                problems.append(f"{where}: expected a {len(shape.tuple_shapes)}-tuple")
                return
            for i, (s, v) in enumerate(zip(shape.tuple_shapes, value)):
                check(s, v, f"{where}[{i}]")
            return
        array = np.asarray(value)
        if tuple(array.shape) != shape.dims or array.dtype != shape.dtype:
            problems.append(f"{where}: got {array.dtype}{list(array.shape)}, HLO root says {shape}")
        elif _is_floating(array.dtype) and not np.all(np.isfinite(array.astype(np.float64))):
            problems.append(f"{where}: {int(np.sum(~np.isfinite(array.astype(np.float64))))} non-finite values")

    check(module.entry.root.shape, result, "result")
    return problems
