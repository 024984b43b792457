#ifndef HMO_IR_DIMENSION_NUMBERS_H_
#define HMO_IR_DIMENSION_NUMBERS_H_

// Dimension numbers of convolution, dot, gather and scatter, plus the
// comparison direction/type of compare. Field names follow xla_data.proto.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hmo {

// Convolution dimension numbers, written in text as `dim_labels=b01f_01io->b01f`
// (lhs `b`/`f`/spatial digits, rhs `i`/`o`/digits, output like lhs).
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;

  bool operator==(const ConvolutionDimensionNumbers&) const = default;
};

// Parses "b01f_01io->b01f". Errors name the offending part.
absl::StatusOr<ConvolutionDimensionNumbers> ParseConvolutionDimLabels(std::string_view text);
// Inverse of ParseConvolutionDimLabels.
std::string ConvolutionDimLabelsToString(const ConvolutionDimensionNumbers& dnums);

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;

  bool operator==(const DotDimensionNumbers&) const = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;

  bool operator==(const GatherDimensionNumbers&) const = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;

  bool operator==(const ScatterDimensionNumbers&) const = default;
};

// `direction=` of compare.
enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
// `type=` of compare.
enum class ComparisonType { kFloat, kFloatTotalOrder, kSigned, kUnsigned, kPartialOrder };

std::string_view ComparisonDirectionToString(ComparisonDirection d);  // "EQ"...
std::optional<ComparisonDirection> StringToComparisonDirection(std::string_view s);
// "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", "PARTIALORDER".
std::string_view ComparisonTypeToString(ComparisonType t);
std::optional<ComparisonType> StringToComparisonType(std::string_view s);

}  // namespace hmo

#endif  // HMO_IR_DIMENSION_NUMBERS_H_
