// __hmo_cpu_conv2d_f32, _bf16 and _f16 against a reference that materializes the dilated,
// padded input and the dilated kernel and then slides a plain window; their
// epilogue forms (__hmo_cpu_conv2d_epilogue_*) against the plain ones.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hmo/base/half_float_bits.h"
#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace {

struct ConvCase {
  const char* name;
  int64_t batch, rows, cols, features;
  int64_t kernel_rows, kernel_cols, output_features;
  int64_t stride_rows, stride_cols;
  int64_t pad_low_rows, pad_high_rows, pad_low_cols, pad_high_cols;
  int64_t lhs_dilation_rows, lhs_dilation_cols;
  int64_t rhs_dilation_rows, rhs_dilation_cols;
  int64_t groups;
};

int64_t Dilated(int64_t size, int64_t dilation) {
  return size == 0 ? 0 : (size - 1) * dilation + 1;
}

HmoCpuConv2DShape ShapeFor(const ConvCase& c) {
  HmoCpuConv2DShape s{};
  s.batch = c.batch;
  s.input_rows = c.rows;
  s.input_cols = c.cols;
  s.input_features = c.features;
  s.kernel_rows = c.kernel_rows;
  s.kernel_cols = c.kernel_cols;
  s.output_features = c.output_features;
  s.stride_rows = c.stride_rows;
  s.stride_cols = c.stride_cols;
  s.pad_low_rows = c.pad_low_rows;
  s.pad_high_rows = c.pad_high_rows;
  s.pad_low_cols = c.pad_low_cols;
  s.pad_high_cols = c.pad_high_cols;
  s.lhs_dilation_rows = c.lhs_dilation_rows;
  s.lhs_dilation_cols = c.lhs_dilation_cols;
  s.rhs_dilation_rows = c.rhs_dilation_rows;
  s.rhs_dilation_cols = c.rhs_dilation_cols;
  s.feature_group_count = c.groups;
  const int64_t padded_rows =
      c.pad_low_rows + Dilated(c.rows, c.lhs_dilation_rows) + c.pad_high_rows;
  const int64_t padded_cols =
      c.pad_low_cols + Dilated(c.cols, c.lhs_dilation_cols) + c.pad_high_cols;
  s.output_rows = (padded_rows - Dilated(c.kernel_rows, c.rhs_dilation_rows)) / c.stride_rows + 1;
  s.output_cols = (padded_cols - Dilated(c.kernel_cols, c.rhs_dilation_cols)) / c.stride_cols + 1;
  return s;
}

std::vector<float> Reference(const HmoCpuConv2DShape& s, const std::vector<float>& input,
                             const std::vector<float>& filter) {
  const int64_t C = s.input_features, O = s.output_features, G = s.feature_group_count;
  const int64_t Cg = C / G, Og = O / G;
  // The input, dilated then padded (negative padding crops).
  const int64_t dilated_rows = Dilated(s.input_rows, s.lhs_dilation_rows);
  const int64_t dilated_cols = Dilated(s.input_cols, s.lhs_dilation_cols);
  const int64_t pr = s.pad_low_rows + dilated_rows + s.pad_high_rows;
  const int64_t pc = s.pad_low_cols + dilated_cols + s.pad_high_cols;
  std::vector<float> padded(s.batch * pr * pc * C, 0.0f);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t r = 0; r < s.input_rows; ++r)
      for (int64_t c = 0; c < s.input_cols; ++c) {
        const int64_t prow = r * s.lhs_dilation_rows + s.pad_low_rows;
        const int64_t pcol = c * s.lhs_dilation_cols + s.pad_low_cols;
        if (prow < 0 || prow >= pr || pcol < 0 || pcol >= pc) continue;
        for (int64_t f = 0; f < C; ++f)
          padded[((b * pr + prow) * pc + pcol) * C + f] =
              input[((b * s.input_rows + r) * s.input_cols + c) * C + f];
      }
  // The kernel, dilated.
  const int64_t kr = Dilated(s.kernel_rows, s.rhs_dilation_rows);
  const int64_t kc = Dilated(s.kernel_cols, s.rhs_dilation_cols);
  std::vector<float> kernel(kr * kc * Cg * O, 0.0f);
  for (int64_t r = 0; r < s.kernel_rows; ++r)
    for (int64_t c = 0; c < s.kernel_cols; ++c)
      for (int64_t i = 0; i < Cg * O; ++i)
        kernel[((r * s.rhs_dilation_rows) * kc + c * s.rhs_dilation_cols) * Cg * O + i] =
            filter[(r * s.kernel_cols + c) * Cg * O + i];
  std::vector<float> out(s.batch * s.output_rows * s.output_cols * O, 0.0f);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t r = 0; r < s.output_rows; ++r)
      for (int64_t c = 0; c < s.output_cols; ++c)
        for (int64_t o = 0; o < O; ++o) {
          const int64_t g = o / Og;
          double sum = 0;
          for (int64_t a = 0; a < kr; ++a)
            for (int64_t d = 0; d < kc; ++d)
              for (int64_t ci = 0; ci < Cg; ++ci)
                sum += padded[((b * pr + r * s.stride_rows + a) * pc + c * s.stride_cols + d) * C +
                              g * Cg + ci] *
                       kernel[((a * kc + d) * Cg + ci) * O + o];
          out[((b * s.output_rows + r) * s.output_cols + c) * O + o] = static_cast<float>(sum);
        }
  return out;
}

std::vector<float> Random(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(size);
  for (float& v : values) v = dist(rng);
  return values;
}

class Conv2DTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(Conv2DTest, MatchesReference) {
  const HmoCpuConv2DShape s = ShapeFor(GetParam());
  ASSERT_GT(s.output_rows, 0);
  ASSERT_GT(s.output_cols, 0);
  const auto input = Random(s.batch * s.input_rows * s.input_cols * s.input_features, 11);
  const auto filter = Random(s.kernel_rows * s.kernel_cols *
                                 (s.input_features / s.feature_group_count) * s.output_features,
                             12);
  std::vector<float> out(s.batch * s.output_rows * s.output_cols * s.output_features, 99.0f);
  __hmo_cpu_conv2d_f32(out.data(), input.data(), filter.data(), &s);
  const auto expected = Reference(s, input, filter);
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 1e-4f) << "at " << i;
}

// A 16-bit float type of the runtime convolutions: its conversions, its
// convolution and its epilogue form, and the relative error of one rounding
// (half an ulp) with the f32 sum's own error.
struct NarrowConv {
  uint16_t (*narrow)(float);
  float (*widen)(uint16_t);
  void (*convolve)(uint16_t*, const uint16_t*, const uint16_t*, const HmoCpuConv2DShape*);
  void (*convolve_with_epilogue)(const uint16_t*, const uint16_t*, const HmoCpuConv2DShape*,
                                 uint16_t*, HmoCpuGemmEpilogue, char**);
  float relative_error;
};

const NarrowConv kBf16Conv = {__hmo_cpu_f32_to_bf16, __hmo_cpu_bf16_to_f32, __hmo_cpu_conv2d_bf16,
                              __hmo_cpu_conv2d_epilogue_bf16, 0x1p-8f};
const NarrowConv kF16Conv = {__hmo_cpu_f32_to_f16, __hmo_cpu_f16_to_f32, __hmo_cpu_conv2d_f16,
                             __hmo_cpu_conv2d_epilogue_f16, 0x1p-10f};

std::vector<uint16_t> Narrowed(const NarrowConv& type, const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float v : values) bits.push_back(type.narrow(v));
  return bits;
}

// The shape's input and filter in `type`, from seeds `seed` and `seed + 1`.
std::pair<std::vector<uint16_t>, std::vector<uint16_t>> NarrowOperands(const NarrowConv& type,
                                                                       const HmoCpuConv2DShape& s,
                                                                       uint32_t seed) {
  return {Narrowed(type, Random(s.batch * s.input_rows * s.input_cols * s.input_features, seed)),
          Narrowed(type, Random(s.kernel_rows * s.kernel_cols *
                                    (s.input_features / s.feature_group_count) * s.output_features,
                                seed + 1))};
}

// The reference convolves the narrow values exactly (in double); one
// rounding of an f32 sum plus the f32 sum's own error is all a correct
// result differs by.
void ExpectNarrowMatchesReferenceRoundedOnce(const NarrowConv& type, const HmoCpuConv2DShape& s) {
  const auto [input, filter] = NarrowOperands(type, s, 21);
  std::vector<uint16_t> out(s.batch * s.output_rows * s.output_cols * s.output_features, 0x7fc0);
  type.convolve(out.data(), input.data(), filter.data(), &s);
  std::vector<float> wide_input, wide_filter;
  for (uint16_t v : input) wide_input.push_back(type.widen(v));
  for (uint16_t v : filter) wide_filter.push_back(type.widen(v));
  const auto expected = Reference(s, wide_input, wide_filter);
  ASSERT_EQ(out.size(), expected.size());
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_NEAR(type.widen(out[i]), expected[i],
                std::abs(expected[i]) * type.relative_error + 1e-5f)
        << "at " << i;
  }
}

TEST_P(Conv2DTest, Bf16MatchesReferenceRoundedOnce) {
  ExpectNarrowMatchesReferenceRoundedOnce(kBf16Conv, ShapeFor(GetParam()));
}

TEST_P(Conv2DTest, F16MatchesReferenceRoundedOnce) {
  ExpectNarrowMatchesReferenceRoundedOnce(kF16Conv, ShapeFor(GetParam()));
}

// What the test's epilogue saw: each tile's values copied out by output
// index, how often each element was handed over, and whether every tile of
// an in-place run was the output's own region.
template <typename T>
struct CollectedTiles {
  int64_t features = 0;
  const T* product_out = nullptr;
  std::vector<T> values;
  std::vector<std::atomic<int>> visits;
  std::atomic<bool> tiles_in_output{true};
  std::atomic<int64_t> largest_tile{0};
};

template <typename T>
void CollectConvTile(char** buffer_table, const void* tile, int64_t ld, int64_t batch_index,
                     int64_t row_begin, int64_t row_end, int64_t column_begin, int64_t column_end) {
  auto& collected = *reinterpret_cast<CollectedTiles<T>*>(buffer_table[0]);
  const auto* values = static_cast<const T*>(tile);
  if (batch_index != 0) collected.tiles_in_output = false;
  if (collected.product_out != nullptr &&
      (ld != collected.features ||
       values != collected.product_out + row_begin * collected.features + column_begin)) {
    collected.tiles_in_output = false;
  }
  const int64_t size = (row_end - row_begin) * (column_end - column_begin);
  int64_t largest = collected.largest_tile.load();
  while (size > largest && !collected.largest_tile.compare_exchange_weak(largest, size)) {
  }
  for (int64_t r = row_begin; r < row_end; ++r) {
    for (int64_t c = column_begin; c < column_end; ++c) {
      const int64_t at = r * collected.features + c;
      collected.values[at] = values[(r - row_begin) * ld + (c - column_begin)];
      collected.visits[at].fetch_add(1);
    }
  }
}

// Runs `epilogue_conv` with the collecting epilogue, into scratch
// (in_place false) or into the output, on three intra-op threads, and
// checks every output element reached the epilogue once with `expected`'s
// value (`widen` reads a T as f32), within the scratch bound.
template <typename T, typename EpilogueConv, typename Widen>
void ExpectEpilogueSeesEveryOutputOnce(EpilogueConv epilogue_conv, Widen widen,
                                       const HmoCpuConv2DShape& s, const std::vector<T>& expected,
                                       bool in_place) {
  const int64_t previous_threads = hmo::codegen::IntraOpThreadCount();
  hmo::codegen::SetIntraOpThreadCount(3);
  CollectedTiles<T> collected;
  collected.features = s.output_features;
  collected.values.assign(expected.size(), T(0));
  collected.visits = std::vector<std::atomic<int>>(expected.size());
  std::vector<T> product(in_place ? expected.size() : 0, T(0));
  collected.product_out = in_place ? product.data() : nullptr;
  char* table[] = {reinterpret_cast<char*>(&collected)};
  epilogue_conv(in_place ? product.data() : nullptr, &CollectConvTile<T>, table);
  hmo::codegen::SetIntraOpThreadCount(previous_threads);
  EXPECT_TRUE(collected.tiles_in_output);
  if (!in_place) {
    EXPECT_LE(collected.largest_tile.load(), int64_t{1} << 20);
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(collected.visits[i].load(), 1) << "output " << i;
    // The bands (and so the library's blocking) may differ from the plain
    // call's: an f32 sum's last bits, or one bf16 rounding, may differ.
    const float actual = widen(collected.values[i]);
    const float wanted = widen(expected[i]);
    ASSERT_NEAR(actual, wanted, std::abs(wanted) * 0x1p-7f + 1e-5f) << "output " << i;
  }
}

TEST_P(Conv2DTest, EpilogueSeesThePlainConvolution) {
  const HmoCpuConv2DShape s = ShapeFor(GetParam());
  const auto input = Random(s.batch * s.input_rows * s.input_cols * s.input_features, 31);
  const auto filter = Random(s.kernel_rows * s.kernel_cols *
                                 (s.input_features / s.feature_group_count) * s.output_features,
                             32);
  std::vector<float> expected(s.batch * s.output_rows * s.output_cols * s.output_features);
  __hmo_cpu_conv2d_f32(expected.data(), input.data(), filter.data(), &s);
  for (bool in_place : {false, true}) {
    SCOPED_TRACE(in_place ? "in place" : "scratch");
    ExpectEpilogueSeesEveryOutputOnce<float>(
        [&](float* product_out, HmoCpuGemmEpilogue epilogue, char** table) {
          __hmo_cpu_conv2d_epilogue_f32(input.data(), filter.data(), &s, product_out, epilogue,
                                        table);
        },
        [](float value) { return value; }, s, expected, in_place);
  }
}

void ExpectNarrowEpilogueSeesThePlainConvolution(const NarrowConv& type,
                                                 const HmoCpuConv2DShape& s) {
  // Named, not bound: the lambda below captures them.
  const auto operands = NarrowOperands(type, s, 41);
  const std::vector<uint16_t>& input = operands.first;
  const std::vector<uint16_t>& filter = operands.second;
  std::vector<uint16_t> expected(s.batch * s.output_rows * s.output_cols * s.output_features);
  type.convolve(expected.data(), input.data(), filter.data(), &s);
  for (bool in_place : {false, true}) {
    SCOPED_TRACE(in_place ? "in place" : "scratch");
    ExpectEpilogueSeesEveryOutputOnce<uint16_t>(
        [&](uint16_t* product_out, HmoCpuGemmEpilogue epilogue, char** table) {
          type.convolve_with_epilogue(input.data(), filter.data(), &s, product_out, epilogue,
                                      table);
        },
        [&](uint16_t bits) { return type.widen(bits); }, s, expected, in_place);
  }
}

TEST_P(Conv2DTest, Bf16EpilogueSeesThePlainConvolution) {
  ExpectNarrowEpilogueSeesThePlainConvolution(kBf16Conv, ShapeFor(GetParam()));
}

TEST_P(Conv2DTest, F16EpilogueSeesThePlainConvolution) {
  ExpectNarrowEpilogueSeesThePlainConvolution(kF16Conv, ShapeFor(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Conv2DTest,
    ::testing::Values(
        // name, N H W C, KH KW O, strides, pads (lo/hi rows, lo/hi cols), lhs dil, rhs dil, groups
        ConvCase{"Valid3x3", 2, 6, 5, 3, 3, 3, 4, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        ConvCase{"SamePadded", 1, 5, 5, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        ConvCase{"StridedPaddedDilated", 2, 9, 8, 3, 3, 2, 5, 2, 3, 2, 1, 1, 2, 1, 1, 2, 3, 1},
        ConvCase{"InputDilated", 1, 4, 5, 2, 2, 3, 3, 1, 2, 1, 0, 2, 1, 2, 3, 1, 1, 1},
        ConvCase{"NegativePadding", 1, 7, 7, 2, 2, 2, 2, 1, 1, -1, -2, 0, -1, 1, 1, 1, 1, 1},
        ConvCase{"Grouped", 2, 5, 6, 6, 3, 2, 4, 1, 2, 1, 1, 0, 1, 1, 1, 1, 2, 2},
        ConvCase{"Pointwise", 2, 4, 3, 5, 1, 1, 7, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
        ConvCase{"Depthwise", 2, 7, 6, 4, 3, 3, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4},
        ConvCase{"DepthwiseMultiplier", 1, 6, 6, 3, 3, 2, 6, 1, 1, 1, 1, 0, 2, 1, 2, 2, 1, 3},
        // 128x128 outputs x 72-wide patches exceed the 1M-float patch budget,
        // so the image is convolved in bands of output rows.
        ConvCase{"LargeImageInRowBands", 2, 128, 128, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        // Enough multiply-adds that the depthwise rows are split among threads.
        ConvCase{"LargeDepthwise", 2, 48, 40, 32, 3, 3, 32, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 32},
        // No input features: every output is the empty sum.
        ConvCase{"EmptyContraction", 1, 3, 4, 0, 2, 2, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1}),
    [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

TEST(Conv2DKnownValuesTest, SingleChannelBoxFilter) {
  // A 3x3 image 1..9 with a 2x2 all-ones kernel sums each 2x2 window.
  HmoCpuConv2DShape s{};
  s.batch = 1;
  s.input_rows = s.input_cols = 3;
  s.input_features = 1;
  s.kernel_rows = s.kernel_cols = 2;
  s.output_features = 1;
  s.output_rows = s.output_cols = 2;
  s.stride_rows = s.stride_cols = 1;
  s.lhs_dilation_rows = s.lhs_dilation_cols = 1;
  s.rhs_dilation_rows = s.rhs_dilation_cols = 1;
  s.feature_group_count = 1;
  const std::vector<float> input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<float> filter = {1, 1, 1, 1};
  std::vector<float> out(4);
  __hmo_cpu_conv2d_f32(out.data(), input.data(), filter.data(), &s);
  EXPECT_EQ(out, (std::vector<float>{12, 16, 24, 28}));
}

TEST(Conv2DBf16Test, WidensAccumulatesInF32AndRoundsOnce) {
  // Depthwise 3x3 over two channels of a 4x4 image: bf16 operands widened
  // to f32 must give exactly the f32 convolution of the widened values,
  // rounded once to bf16.
  const ConvCase c{"Depthwise", 1, 4, 4, 2, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
  const HmoCpuConv2DShape s = ShapeFor(c);
  std::mt19937 random(5);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<uint16_t> input(4 * 4 * 2), filter(3 * 3 * 1 * 2);
  for (uint16_t& v : input) v = __hmo_cpu_f32_to_bf16(value(random));
  for (uint16_t& v : filter) v = __hmo_cpu_f32_to_bf16(value(random));
  std::vector<float> wide_input, wide_filter;
  for (uint16_t v : input) wide_input.push_back(__hmo_cpu_bf16_to_f32(v));
  for (uint16_t v : filter) wide_filter.push_back(__hmo_cpu_bf16_to_f32(v));
  const int64_t outputs = s.output_rows * s.output_cols * s.output_features;
  std::vector<float> expected(outputs);
  __hmo_cpu_conv2d_f32(expected.data(), wide_input.data(), wide_filter.data(), &s);
  std::vector<uint16_t> actual(outputs);
  __hmo_cpu_conv2d_bf16(actual.data(), input.data(), filter.data(), &s);
  for (int64_t i = 0; i < outputs; ++i) {
    EXPECT_EQ(actual[i], __hmo_cpu_f32_to_bf16(expected[i])) << "output " << i;
  }
}

// A pointwise convolution of two input features into 16 outputs, out[o] =
// a + b * 2^-(o % 4): every product is exact and the f32 sum is rounded
// once, so each output must be `round` of that sum bit for bit, across the
// type's range (ties, sums past the largest finite value); `exponent` is
// the type's exponent mask (inputs are finite) and inputs have at least
// `lowest_exponent` in that field.
void ExpectEachSumRoundedOnce(const NarrowConv& type, uint16_t (*round)(float), uint16_t exponent,
                              uint16_t lowest_exponent) {
  constexpr int64_t kPixels = 4096;
  constexpr int64_t kOutputs = 16;
  HmoCpuConv2DShape s{};
  s.batch = 1;
  s.input_rows = s.output_rows = 1;
  s.input_cols = s.output_cols = kPixels;
  s.input_features = 2;
  s.kernel_rows = s.kernel_cols = 1;
  s.output_features = kOutputs;
  s.stride_rows = s.stride_cols = 1;
  s.lhs_dilation_rows = s.lhs_dilation_cols = 1;
  s.rhs_dilation_rows = s.rhs_dilation_cols = 1;
  s.feature_group_count = 1;
  std::mt19937 random(9);
  std::uniform_int_distribution<int> bits(0, 0xffff);
  std::vector<uint16_t> input(kPixels * 2), filter(2 * kOutputs);
  for (uint16_t& v : input) {
    do {
      v = static_cast<uint16_t>(bits(random));
    } while ((v & exponent) == exponent || (v & exponent) < lowest_exponent);
  }
  for (int64_t o = 0; o < kOutputs; ++o) {
    filter[o] = type.narrow(1.0f);
    filter[kOutputs + o] = type.narrow(std::ldexp(1.0f, -(o % 4)));
  }
  std::vector<uint16_t> out(kPixels * kOutputs);
  type.convolve(out.data(), input.data(), filter.data(), &s);
  for (int64_t p = 0; p < kPixels; ++p) {
    const float a = type.widen(input[2 * p]);
    const float b = type.widen(input[2 * p + 1]);
    for (int64_t o = 0; o < kOutputs; ++o) {
      const float sum = a + b * std::ldexp(1.0f, -(o % 4));
      ASSERT_EQ(out[p * kOutputs + o], round(sum))
          << "pixel " << p << " output " << o << ": " << a << " + " << b;
    }
  }
}

TEST(Conv2DNarrowTest, F16RoundsEachSumAsF32ToF16Does) {
  // Subnormals included: the f16 GEMM multiplies widened f32 values.
  ExpectEachSumRoundedOnce(kF16Conv, hmo::half_float_bits::F32ToF16, 0x7c00, 0);
}

TEST(Conv2DNarrowTest, Bf16RoundsEachSumAsF32ToBf16Does) {
  // Magnitudes of 2^-63 and above: oneDNN's bf16 instructions flush
  // subnormal products to zero, as the CPU's bf16 dot-product instructions do.
  ExpectEachSumRoundedOnce(kBf16Conv, hmo::half_float_bits::F32ToBf16, 0x7f80, 64 << 7);
}

}  // namespace
