#include "hmo/ir/dimension_numbers.h"
#include "str_cat.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;
namespace {

// Parses one side of dim_labels. `a`/`b` are the two named dimensions
// ('b','f' for activations, 'i','o' for the kernel); digits name spatial
// dimensions in order 0..n-1.
absl::Status ParseLabels(std::string_view part, char a, char b, int64_t* a_dim, int64_t* b_dim,
                         std::vector<int64_t>* spatial, std::string_view which) {
  *a_dim = -1;
  *b_dim = -1;
  std::vector<int64_t> by_index(part.size(), -1);
  int64_t spatial_count = 0;
  for (size_t i = 0; i < part.size(); ++i) {
    char c = part[i];
    if (c == a) {
      if (*a_dim != -1) return absl::InvalidArgumentError(StrCat("duplicate '", std::string(1, c), "' in ", which, " dim labels"));
      *a_dim = static_cast<int64_t>(i);
    } else if (c == b) {
      if (*b_dim != -1) return absl::InvalidArgumentError(StrCat("duplicate '", std::string(1, c), "' in ", which, " dim labels"));
      *b_dim = static_cast<int64_t>(i);
    } else if (c >= '0' && c <= '9') {
      ++spatial_count;
    } else if (c == '?') {
      // A dimension whose role is unknown (custom calls); XLA takes it.
    } else {
      return absl::InvalidArgumentError(
          StrCat("unexpected character '", std::string(1, c), "' in ", which, " dim labels"));
    }
  }
  if (*a_dim == -1 || *b_dim == -1) {
    return absl::InvalidArgumentError(StrCat(which, " dim labels must name '",
                                                   std::string(1, a), "' and '", std::string(1, b), "'"));
  }
  spatial->assign(spatial_count, -1);
  for (size_t i = 0; i < part.size(); ++i) {
    char c = part[i];
    if (c >= '0' && c <= '9') {
      int64_t s = c - '0';
      if (s >= spatial_count || (*spatial)[s] != -1) {
        return absl::InvalidArgumentError(StrCat("bad spatial dimension label '", std::string(1, c),
                                                       "' in ", which, " dim labels"));
      }
      (*spatial)[s] = static_cast<int64_t>(i);
    }
  }
  return absl::OkStatus();
}

std::string MakeLabels(int64_t rank, char a, int64_t a_dim, char b, int64_t b_dim,
                       const std::vector<int64_t>& spatial) {
  std::string out(static_cast<size_t>(rank), '?');
  if (a_dim >= 0 && a_dim < rank) out[a_dim] = a;
  if (b_dim >= 0 && b_dim < rank) out[b_dim] = b;
  for (size_t s = 0; s < spatial.size(); ++s) {
    if (spatial[s] >= 0 && spatial[s] < rank) out[spatial[s]] = static_cast<char>('0' + s);
  }
  return out;
}

}  // namespace

absl::StatusOr<ConvolutionDimensionNumbers> ParseConvolutionDimLabels(std::string_view text) {
  size_t underscore = text.find('_');
  size_t arrow = text.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore) {
    return absl::InvalidArgumentError(
        StrCat("dim_labels must look like b01f_01io->b01f, got '", std::string(text), "'"));
  }
  std::string_view lhs = text.substr(0, underscore);
  std::string_view rhs = text.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = text.substr(arrow + 2);
  ConvolutionDimensionNumbers d;
  absl::Status st = ParseLabels(lhs, 'b', 'f', &d.input_batch_dimension, &d.input_feature_dimension,
                                &d.input_spatial_dimensions, "input");
  if (!st.ok()) return st;
  st = ParseLabels(rhs, 'i', 'o', &d.kernel_input_feature_dimension,
                   &d.kernel_output_feature_dimension, &d.kernel_spatial_dimensions, "kernel");
  if (!st.ok()) return st;
  st = ParseLabels(out, 'b', 'f', &d.output_batch_dimension, &d.output_feature_dimension,
                   &d.output_spatial_dimensions, "output");
  if (!st.ok()) return st;
  if (d.input_spatial_dimensions.size() != d.kernel_spatial_dimensions.size() ||
      d.input_spatial_dimensions.size() != d.output_spatial_dimensions.size()) {
    return absl::InvalidArgumentError("dim_labels sides have different numbers of spatial dimensions");
  }
  return d;
}

std::string ConvolutionDimLabelsToString(const ConvolutionDimensionNumbers& d) {
  int64_t rank = 2 + static_cast<int64_t>(d.input_spatial_dimensions.size());
  return StrCat(
      MakeLabels(rank, 'b', d.input_batch_dimension, 'f', d.input_feature_dimension,
                 d.input_spatial_dimensions),
      "_",
      MakeLabels(rank, 'i', d.kernel_input_feature_dimension, 'o',
                 d.kernel_output_feature_dimension, d.kernel_spatial_dimensions),
      "->",
      MakeLabels(rank, 'b', d.output_batch_dimension, 'f', d.output_feature_dimension,
                 d.output_spatial_dimensions));
}

namespace {
constexpr std::array<std::string_view, 6> kDirections = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr std::array<std::string_view, 5> kTypes = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED",
                                                    "PARTIALORDER"};
}  // namespace

std::string_view ComparisonDirectionToString(ComparisonDirection d) {
  return kDirections[static_cast<int>(d)];
}

std::optional<ComparisonDirection> StringToComparisonDirection(std::string_view s) {
  for (size_t i = 0; i < kDirections.size(); ++i) {
    if (kDirections[i] == s) return static_cast<ComparisonDirection>(i);
  }
  return std::nullopt;
}

std::string_view ComparisonTypeToString(ComparisonType t) { return kTypes[static_cast<int>(t)]; }

std::optional<ComparisonType> StringToComparisonType(std::string_view s) {
  for (size_t i = 0; i < kTypes.size(); ++i) {
    if (kTypes[i] == s) return static_cast<ComparisonType>(i);
  }
  return std::nullopt;
}

}  // namespace hmo
