// 2-D f32, bf16 and f16 convolutions (NHWC input, HWIO filter, NHWC output).
//
// General and grouped convolutions lower to im2col + one SGEMM per (band of
// output rows, group), the bands split among the intra-op threads: the patch
// matrix has one row per output pixel and one column per
// (kernel row, kernel col, group input feature), which is exactly the row
// order of the HWIO filter, so the filter is used in place as the GEMM's rhs
// (its group's output columns selected through the leading dimension).
// Depthwise convolutions (one input feature per group) would give GEMMs with
// K = kernel taps and N = channel multiplier — too thin for BLAS — so they run
// a direct loop whose innermost dimension is the contiguous output feature.
//
// A bf16 (f16) convolution runs the same code on bf16 (f16) patches: its
// GEMMs multiply the 16-bit values exactly and accumulate in f32
// (narrow_products.h), into a band-sized f32 scratch rounded once per
// output; its depthwise loop accumulates each output pixel in f32. The scratch is bounded by the
// band, not by the image, as XLA:CPU's convolution scratch is.

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "hmo/base/half_float_bits.h"
#include "hmo/codegen/runtime/runtime_functions.h"
#include "narrow_products.h"
#include "parallel_gemm.h"

namespace {

// Maps an output pixel's kernel tap along one dimension to an input index, or
// -1 when it falls on padding or on a hole inserted by input dilation.
struct DimensionMap {
  int64_t input_size;
  int64_t stride;
  int64_t pad_low;
  int64_t lhs_dilation;
  int64_t rhs_dilation;

  int64_t InputIndex(int64_t output_index, int64_t kernel_index) const {
    const int64_t dilated = output_index * stride + kernel_index * rhs_dilation - pad_low;
    if (dilated < 0 || dilated % lhs_dilation != 0) return -1;
    const int64_t index = dilated / lhs_dilation;
    return index < input_size ? index : -1;
  }
};

DimensionMap RowMap(const HmoCpuConv2DShape& s) {
  return {s.input_rows, s.stride_rows, s.pad_low_rows, s.lhs_dilation_rows, s.rhs_dilation_rows};
}
DimensionMap ColMap(const HmoCpuConv2DShape& s) {
  return {s.input_cols, s.stride_cols, s.pad_low_cols, s.lhs_dilation_cols, s.rhs_dilation_cols};
}

bool IsPointwise(const HmoCpuConv2DShape& s) {
  return s.kernel_rows == 1 && s.kernel_cols == 1 && s.stride_rows == 1 && s.stride_cols == 1 &&
         s.pad_low_rows == 0 && s.pad_high_rows == 0 && s.pad_low_cols == 0 &&
         s.pad_high_cols == 0 && s.lhs_dilation_rows == 1 && s.lhs_dilation_cols == 1 &&
         s.feature_group_count == 1 && s.output_rows == s.input_rows &&
         s.output_cols == s.input_cols;
}

// One element type's convolution arithmetic: Storage is stored, products
// are accumulated in f32.
struct F32Element {
  using Storage = float;
  static constexpr bool kNarrow = false;
  static void RoundRow(const float* from, int64_t count, float* to) {
    std::copy(from, from + count, to);
  }
  // C[m x n] = A[m x k] * B[k x n] with the given leading dimensions.
  static void Gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                   int64_t ldb, float* c, int64_t ldc) {
    hmo::codegen::ParallelGemm<float, float>(hmo::codegen::CblasProduct<float>(cblas_sgemm),
                                             CblasNoTrans, CblasNoTrans, m, n, k, a, lda, b, ldb, c,
                                             ldc);
  }
  static float Widen(float value) { return value; }
};

// A 16-bit float type (its bits): `Product` multiplies narrow matrices into
// f32 (narrow_products.h).
template <float (*kWiden)(uint16_t), auto kProduct,
          void (*kRoundRow)(const float*, int64_t, uint16_t*)>
struct HalfFloatElement {
  using Storage = uint16_t;
  static constexpr bool kNarrow = true;
  static void RoundRow(const float* from, int64_t count, uint16_t* to) {
    kRoundRow(from, count, to);
  }
  static void Gemm(int64_t m, int64_t n, int64_t k, const uint16_t* a, int64_t lda,
                   const uint16_t* b, int64_t ldb, float* c, int64_t ldc) {
    hmo::codegen::ParallelGemm<uint16_t, float>(kProduct, CblasNoTrans, CblasNoTrans, m, n, k, a,
                                                lda, b, ldb, c, ldc);
  }
  static float Widen(uint16_t value) { return kWiden(value); }
};

using Bf16Element = HalfFloatElement<hmo::half_float_bits::Bf16ToF32, hmo::codegen::Bf16Product,
                                     hmo::codegen::RoundRowToBf16>;
using F16Element = HalfFloatElement<hmo::half_float_bits::F16ToF32, hmo::codegen::F16Product,
                                    hmo::codegen::RoundRowToF16>;

// Where a convolution's product goes: into `output` (the NHWC output, which
// an epilogue may then overwrite in place), or, with `output` null, into
// per-thread scratch tiles; each tile (rows: output pixels in NHW order;
// columns: output features) is handed to `epilogue` when there is one.
template <typename T>
struct ProductSink {
  T* output = nullptr;
  HmoCpuGemmEpilogue epilogue = nullptr;
  char** buffer_table = nullptr;

  void Finish(const T* tile, int64_t tile_ld, int64_t first_pixel, int64_t last_pixel,
              int64_t first_feature, int64_t last_feature) const {
    if (epilogue != nullptr) {
      epilogue(buffer_table, tile, tile_ld, 0, first_pixel, last_pixel, first_feature,
               last_feature);
    }
  }
};

// Patch rows are built here unless the convolution is pointwise (the input
// already is the patch matrix, read in place); a narrow type's products go to
// `products` and are rounded into the band's tile.
template <typename Element, typename T = typename Element::Storage>
void ConvolveIm2Col(const ProductSink<T>& sink, const T* input, const T* filter,
                    const HmoCpuConv2DShape& s, bool pointwise) {
  const int64_t groups = s.feature_group_count;
  const int64_t group_inputs = s.input_features / groups;
  const int64_t group_outputs = s.output_features / groups;
  const int64_t patch = s.kernel_rows * s.kernel_cols * group_inputs;
  const int64_t row_patches = pointwise ? 0 : s.output_cols * patch;
  const int64_t row_products = Element::kNarrow ? s.output_cols * group_outputs : 0;
  // An epilogue's tile is as bounded as the rest of the band's scratch, so
  // that it is applied to products still in cache.
  const int64_t row_tile = sink.epilogue != nullptr ? s.output_cols * group_outputs : 0;
  // The output rows of every image in turn, cut into bands: a band may span
  // images, so that a small output (a weight gradient: a few taps, one
  // image per input feature) still makes GEMMs of many rows. As many bands
  // as threads (a multiple), each thread building its bands' patches.
  const int64_t total_rows = s.batch * s.output_rows;
  const int64_t threads = hmo::codegen::IntraOpThreadCount();
  // Large images are convolved a band of output rows at a time, so that the
  // scratch (patches, a narrow type's products, a tile) stays within its
  // bound.
  const int64_t row_scratch = std::max<int64_t>(1, row_patches + row_products + row_tile);
  const int64_t most_band_rows =
      std::clamp<int64_t>(hmo::codegen::kMaxScratchElements / row_scratch, 1, total_rows);
  int64_t bands = (total_rows + most_band_rows - 1) / most_band_rows;
  bands = std::min(total_rows, (bands + threads - 1) / threads * threads);
  const int64_t band_rows = (total_rows + bands - 1) / bands;
  bands = (total_rows + band_rows - 1) / band_rows;
  const DimensionMap rows = RowMap(s);
  const DimensionMap cols = ColMap(s);
  const auto convolve_bands = [&](int64_t first_band, int64_t last_band) {
    std::vector<T> patches(static_cast<size_t>(band_rows * row_patches));
    std::vector<float> products(static_cast<size_t>(band_rows * row_products));
    std::vector<T> tiles(sink.output == nullptr ? static_cast<size_t>(band_rows * row_tile) : 0);
    for (int64_t band = first_band; band < last_band; ++band) {
      const int64_t first_row = band * band_rows;
      const int64_t last_row = std::min(first_row + band_rows, total_rows);
      const int64_t first_pixel = first_row * s.output_cols;
      const int64_t band_pixels = (last_row - first_row) * s.output_cols;
      for (int64_t g = 0; g < groups; ++g) {
        const T* band_patches = patches.data();
        if (pointwise) {
          band_patches = input + first_pixel * s.input_features;
        } else {
          T* row_out = patches.data();
          for (int64_t t = first_row; t < last_row; ++t) {
            const int64_t r = t % s.output_rows;
            const T* image =
                input + (t / s.output_rows) * s.input_rows * s.input_cols * s.input_features;
            for (int64_t c = 0; c < s.output_cols; ++c) {
              for (int64_t kr = 0; kr < s.kernel_rows; ++kr) {
                const int64_t ir = rows.InputIndex(r, kr);
                for (int64_t kc = 0; kc < s.kernel_cols; ++kc) {
                  const int64_t ic = ir < 0 ? -1 : cols.InputIndex(c, kc);
                  if (ic < 0) {
                    std::fill(row_out, row_out + group_inputs, T(0));
                  } else {
                    const T* src =
                        image + (ir * s.input_cols + ic) * s.input_features + g * group_inputs;
                    std::copy(src, src + group_inputs, row_out);
                  }
                  row_out += group_inputs;
                }
              }
            }
          }
        }
        // The band's tile of group g: in the output, or scratch.
        T* tile = tiles.data();
        int64_t tile_ld = group_outputs;
        if (sink.output != nullptr) {
          tile = sink.output + first_pixel * s.output_features + g * group_outputs;
          tile_ld = s.output_features;
        }
        // Within a part this GEMM is one call; alone (one band) it is split.
        if constexpr (Element::kNarrow) {
          Element::Gemm(band_pixels, group_outputs, patch, band_patches, patch,
                        filter + g * group_outputs, s.output_features, products.data(),
                        group_outputs);
          for (int64_t p = 0; p < band_pixels; ++p) {
            Element::RoundRow(products.data() + p * group_outputs, group_outputs,
                              tile + p * tile_ld);
          }
        } else {
          Element::Gemm(band_pixels, group_outputs, patch, band_patches, patch,
                        filter + g * group_outputs, s.output_features, tile, tile_ld);
        }
        sink.Finish(tile, tile_ld, first_pixel, first_pixel + band_pixels, g * group_outputs,
                    (g + 1) * group_outputs);
      }
    }
  };
  hmo::codegen::ForEachIntraOpPart(bands, [&](int64_t part, int64_t parts) {
    convolve_bands(bands * part / parts, bands * (part + 1) / parts);
  });
}

// Each output pixel's features are accumulated in f32 (in its tile for f32),
// the output rows split among the intra-op threads, one tile per row.
template <typename Element, typename T = typename Element::Storage>
void ConvolveDepthwise(const ProductSink<T>& sink, const T* input, const T* filter,
                       const HmoCpuConv2DShape& s) {
  // Output feature o belongs to group o / multiplier, whose one input feature
  // is that same index.
  const int64_t features = s.output_features;
  const int64_t multiplier = features / s.input_features;
  const DimensionMap rows = RowMap(s);
  const DimensionMap cols = ColMap(s);
  const int64_t total_rows = s.batch * s.output_rows;
  const int64_t row_taps = s.output_cols * features * s.kernel_rows * s.kernel_cols;
  const auto convolve_rows = [&](int64_t first_row, int64_t last_row) {
    std::vector<float> sums(Element::kNarrow ? static_cast<size_t>(features) : 0);
    std::vector<T> tile(sink.output == nullptr ? static_cast<size_t>(s.output_cols * features) : 0);
    for (int64_t t = first_row; t < last_row; ++t) {
      const int64_t r = t % s.output_rows;
      const T* image = input + (t / s.output_rows) * s.input_rows * s.input_cols * s.input_features;
      T* row_tile =
          sink.output != nullptr ? sink.output + t * s.output_cols * features : tile.data();
      for (int64_t c = 0; c < s.output_cols; ++c) {
        T* out = row_tile + c * features;
        float* sum;
        if constexpr (Element::kNarrow) {
          sum = sums.data();
        } else {
          sum = out;
        }
        std::fill(sum, sum + features, 0.0f);
        for (int64_t kr = 0; kr < s.kernel_rows; ++kr) {
          const int64_t ir = rows.InputIndex(r, kr);
          if (ir < 0) continue;
          for (int64_t kc = 0; kc < s.kernel_cols; ++kc) {
            const int64_t ic = cols.InputIndex(c, kc);
            if (ic < 0) continue;
            const T* in = image + (ir * s.input_cols + ic) * s.input_features;
            const T* taps = filter + (kr * s.kernel_cols + kc) * features;
            if (multiplier == 1) {
              for (int64_t o = 0; o < features; ++o)
                sum[o] += Element::Widen(in[o]) * Element::Widen(taps[o]);
            } else {
              for (int64_t o = 0; o < features; ++o)
                sum[o] += Element::Widen(in[o / multiplier]) * Element::Widen(taps[o]);
            }
          }
        }
        if constexpr (Element::kNarrow) Element::RoundRow(sum, features, out);
      }
      sink.Finish(row_tile, features, t * s.output_cols, (t + 1) * s.output_cols, 0, features);
    }
  };
  const int64_t max_parts =
      total_rows * row_taps < hmo::codegen::kMinParallelGemmFlops ? 1 : total_rows;
  hmo::codegen::ForEachIntraOpPart(max_parts, [&](int64_t part, int64_t parts) {
    convolve_rows(total_rows * part / parts, total_rows * (part + 1) / parts);
  });
}

template <typename Element, typename T = typename Element::Storage>
void Convolve(const ProductSink<T>& sink, const T* input, const T* filter,
              const HmoCpuConv2DShape& s) {
  const int64_t output_elements = s.batch * s.output_rows * s.output_cols * s.output_features;
  if (output_elements <= 0) return;
  const int64_t group_inputs = s.input_features / s.feature_group_count;
  if (group_inputs == 0 || s.kernel_rows == 0 || s.kernel_cols == 0) {
    // An empty contraction: every output is the empty sum, in tiles of
    // whole pixels within the scratch bound.
    const int64_t pixels = output_elements / s.output_features;
    const int64_t tile_pixels =
        std::clamp<int64_t>(hmo::codegen::kMaxScratchElements / s.output_features, 1, pixels);
    std::vector<T> zeros(
        sink.output == nullptr ? static_cast<size_t>(tile_pixels * s.output_features) : 0, T(0));
    for (int64_t first = 0; first < pixels; first += tile_pixels) {
      const int64_t last = std::min(first + tile_pixels, pixels);
      T* tile = zeros.data();
      if (sink.output != nullptr) {
        tile = sink.output + first * s.output_features;
        std::fill(tile, tile + (last - first) * s.output_features, T(0));
      }
      sink.Finish(tile, s.output_features, first, last, 0, s.output_features);
    }
    return;
  }
  if constexpr (!Element::kNarrow) {
    if (IsPointwise(s) && sink.epilogue == nullptr) {
      // A 1x1 kernel over an undilated, unpadded, unstrided image: the NHWC
      // input already is the [pixels, features] patch matrix, one GEMM.
      const int64_t pixels = s.batch * s.input_rows * s.input_cols;
      Element::Gemm(pixels, s.output_features, s.input_features, input, s.input_features, filter,
                    s.output_features, sink.output, s.output_features);
      return;
    }
  }
  if (group_inputs == 1 && s.feature_group_count > 1) {
    ConvolveDepthwise<Element>(sink, input, filter, s);
    return;
  }
  // A narrow pointwise convolution (or one with an epilogue) reads its
  // input in place, in bands whose products fit the band scratch.
  ConvolveIm2Col<Element>(sink, input, filter, s, IsPointwise(s));
}

}  // namespace

extern "C" void __hmo_cpu_conv2d_f32(float* output, const float* input, const float* filter,
                                     const HmoCpuConv2DShape* shape) {
  Convolve<F32Element>(ProductSink<float>{output}, input, filter, *shape);
}

extern "C" void __hmo_cpu_conv2d_bf16(uint16_t* output, const uint16_t* input,
                                      const uint16_t* filter, const HmoCpuConv2DShape* shape) {
  Convolve<Bf16Element>(ProductSink<uint16_t>{output}, input, filter, *shape);
}

extern "C" void __hmo_cpu_conv2d_f16(uint16_t* output, const uint16_t* input,
                                     const uint16_t* filter, const HmoCpuConv2DShape* shape) {
  Convolve<F16Element>(ProductSink<uint16_t>{output}, input, filter, *shape);
}

extern "C" void __hmo_cpu_conv2d_epilogue_f32(const float* input, const float* filter,
                                              const HmoCpuConv2DShape* shape, float* product_out,
                                              HmoCpuGemmEpilogue epilogue, char** buffer_table) {
  Convolve<F32Element>(ProductSink<float>{product_out, epilogue, buffer_table}, input, filter,
                       *shape);
}

extern "C" void __hmo_cpu_conv2d_epilogue_bf16(const uint16_t* input, const uint16_t* filter,
                                               const HmoCpuConv2DShape* shape,
                                               uint16_t* product_out, HmoCpuGemmEpilogue epilogue,
                                               char** buffer_table) {
  Convolve<Bf16Element>(ProductSink<uint16_t>{product_out, epilogue, buffer_table}, input, filter,
                        *shape);
}

extern "C" void __hmo_cpu_conv2d_epilogue_f16(const uint16_t* input, const uint16_t* filter,
                                              const HmoCpuConv2DShape* shape, uint16_t* product_out,
                                              HmoCpuGemmEpilogue epilogue, char** buffer_table) {
  Convolve<F16Element>(ProductSink<uint16_t>{product_out, epilogue, buffer_table}, input, filter,
                       *shape);
}
