"""Checks of hlo_to_jax.py on small modules with values worked out by hand.

Needs JAX, so it is not part of hmo's test suite; run it with the venv that
runs the benchmark:
  ~/jaxenv/bin/python -m unittest discover -s bench/cpu_vs_xla -p '*_test.py'
"""

import sys
import unittest
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hlo_to_jax as h  # noqa: E402


def run(text: str, *args):
    import jax

    module = h.parse_module(text)
    constants, _ = h.constant_values(module, 0)
    result = jax.jit(h.to_jax_function(module, constants))(*args)
    return module, jax.tree.map(np.asarray, result)


class RandomValuesMatchHmo(unittest.TestCase):
    """Values produced by hmo's libhmo_framework (MakeRandomLiteral /
    DeriveSeed) for the same seeds, recorded from a C++ program."""

    def test_splitmix64_reference_sequence(self):
        self.assertEqual([int(x) for x in h._splitmix64_stream(0, 2)],
                         [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4])

    def test_named_constant_seed_and_values(self):
        seed = h.derive_seed(3, "w")
        self.assertEqual(seed, 4552936362709812953)
        f32 = h.random_array(h.Shape("f32", (4,)), seed)
        np.testing.assert_array_equal(
            f32, np.array([-0.722216249, 0.49023807, -0.375155091, 0.855410218], np.float32))
        bf16 = h.random_array(h.Shape("bf16", (4,)), seed).astype(np.float64)
        np.testing.assert_array_equal(bf16, [-0.7265625, 0.484375, -0.3828125, 0.8515625])

    def test_integer_parameter_values(self):
        values = h.random_array(h.Shape("s32", (6,)), h.derive_seed(9, 1))
        np.testing.assert_array_equal(values, [8, 4, 5, 4, 12, 1])
        self.assertEqual(values.dtype, np.int32)

    def test_elided_constants_only(self):
        module = h.parse_module("""HloModule m
ENTRY e {
  w = f32[4] constant({...})
  k = f32[2] constant({1, 2.5})
  ROOT t = (f32[4], f32[2]) tuple(w, k)
}""")
        values, elided = h.constant_values(module, 3)
        self.assertEqual(elided, 1)
        np.testing.assert_array_equal(values["w"], h.random_array(h.Shape("f32", (4,)), 4552936362709812953))
        np.testing.assert_array_equal(values["k"], [1.0, 2.5])


class Parsing(unittest.TestCase):
    def test_instruction_with_comments_nested_attributes_and_tuple_shape(self):
        module = h.parse_module("""HloModule m, entry_computation_layout={(f32[2]{0})->(f32[2]{0}, f32[4]{0})}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (p: f32[2]) -> (f32[2], f32[4]) {
  %p = f32[2]{0} parameter(0), metadata={op_type="A, B" op_name="x{y}"}
  %c = f32[4]{0} concatenate(%p, /*index=1*/%p), dimensions={0}
  ROOT %t = (f32[2]{0}, f32[4]{0}) tuple(%p, %c)
}""")
        self.assertEqual(sorted(module.computations), ["add", "main"])
        self.assertEqual(module.entry.name, "main")
        concat = module.entry.instructions[1]
        self.assertEqual(concat.operands, ["p", "p"])
        self.assertEqual(concat.attributes["dimensions"], "{0}")
        self.assertEqual(module.entry.instructions[0].attributes["metadata"],
                         '{op_type="A, B" op_name="x{y}"}')
        self.assertEqual(str(module.entry.root.shape), "(f32[2], f32[4])")
        self.assertEqual(module.entry.root.shape.byte_size(), 24)


class Translation(unittest.TestCase):
    def test_gather_with_index_vector_dim_first(self):
        # indices s32[1,2]: index_vector_dim=0, so two index vectors {2} and {0}.
        module, result = run("""HloModule m
ENTRY e {
  table = f32[3,4] parameter(0)
  idx = s32[1,2] parameter(1)
  ROOT g = f32[2,4] gather(table, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=0, slice_sizes={1,4}
}""", np.arange(12, dtype=np.float32).reshape(3, 4), np.array([[2, 0]], np.int32))
        np.testing.assert_array_equal(result, [[8, 9, 10, 11], [0, 1, 2, 3]])
        self.assertEqual(h.check_result(module, result), [])

    def test_convolution_window_stride_and_padding(self):
        # 3x3 ones, 2x2 ones kernel, stride 2, one row/column of high padding:
        # windows cover 4, 2, 2 and 1 real elements.
        _, result = run("""HloModule m
ENTRY e {
  x = f32[1,1,3,3] parameter(0)
  k = f32[1,1,2,2] parameter(1)
  ROOT c = f32[1,1,2,2] convolution(x, k), window={size=2x2 stride=2x2 pad=0_1x0_1}, dim_labels=bf01_oi01->bf01
}""", np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32))
        np.testing.assert_array_equal(result[0, 0], [[4, 2], [2, 1]])

    def test_depthwise_convolution_feature_groups(self):
        x = np.stack([np.ones((2, 2)), 2 * np.ones((2, 2))], axis=-1)[None].astype(np.float32)  # b01f
        k = np.array([3, 5], np.float32).reshape(1, 1, 1, 2)  # 01io, one input feature per group
        _, result = run("""HloModule m
ENTRY e {
  x = f32[1,2,2,2] parameter(0)
  k = f32[1,1,1,2] parameter(1)
  ROOT c = f32[1,2,2,2] convolution(x, k), window={size=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=2
}""", x, k)
        np.testing.assert_array_equal(result[0, :, :, 0], 3 * np.ones((2, 2)))
        np.testing.assert_array_equal(result[0, :, :, 1], 10 * np.ones((2, 2)))

    def test_reduce_with_max_computation_and_batched_dot(self):
        _, result = run("""HloModule m
%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  init = f32[] constant(-inf)
  r = f32[2] reduce(x, init), dimensions={1}, to_apply=%max
  l = f32[2,1,3] reshape(x)
  d = f32[2,1,1] dot(l, l), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  ROOT t = (f32[2], f32[2,1,1]) tuple(r, d)
}""", np.array([[1, 5, -2], [0, -1, 3]], np.float32))
        np.testing.assert_array_equal(result[0], [5, 3])
        np.testing.assert_array_equal(result[1].reshape(2), [30, 10])  # row dot products

    def test_elementwise_clamp_slice_broadcast_convert(self):
        _, result = run("""HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(6)
  lob = f32[4] broadcast(lo), dimensions={}
  hib = f32[4] broadcast(hi), dimensions={}
  c = f32[4] clamp(lob, x, hib)
  s = f32[2] slice(c), slice={[1:4:2]}
  ROOT v = s32[2] convert(s)
}""", np.array([-3, 2.5, 9, 7], np.float32))
        np.testing.assert_array_equal(result, [2, 6])
        self.assertEqual(result.dtype, np.int32)

    def test_unsupported_opcode_is_named(self):
        with self.assertRaisesRegex(NotImplementedError, "'sort'.*s1"):
            run("""HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT s1 = f32[4] sort(x), dimensions={0}
}""", np.zeros(4, np.float32))

    def test_check_result_reports_shape_and_non_finite(self):
        module = h.parse_module("HloModule m\nENTRY e {\n  ROOT x = f32[2] parameter(0)\n}")
        self.assertEqual(h.check_result(module, np.zeros(2, np.float32)), [])
        self.assertIn("non-finite", h.check_result(module, np.array([1, np.nan], np.float32))[0])
        self.assertIn("HLO root says f32[2]", h.check_result(module, np.zeros(3, np.float32))[0])


if __name__ == "__main__":
    unittest.main()
