#include "hmo/execution/literal_comparison.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fmt/format.h"

namespace hmo {
namespace {

// Sign-magnitude bit patterns mapped onto integers that increase with the
// value, so that the difference of two is their ULP distance.
int64_t OrderedBits(PrimitiveType type, double value) {
  uint64_t bits;
  int width = BitWidth(type);
  if (type == PrimitiveType::F64) {
    std::memcpy(&bits, &value, sizeof(bits));
  } else if (type == PrimitiveType::F32) {
    const float f = static_cast<float>(value);
    uint32_t b32;
    std::memcpy(&b32, &f, sizeof(b32));
    bits = b32;
  } else {
    bits = primitive_util::DoubleToNarrowFloatBits(type, value);
  }
  if (type == PrimitiveType::F8E8M0FNU) return static_cast<int64_t>(bits);  // unsigned format
  const uint64_t sign = uint64_t{1} << (width - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -magnitude : magnitude;
}

std::vector<int64_t> MultiIndex(const Shape& shape, int64_t linear) {
  std::vector<int64_t> index(shape.dimensions_size());
  for (int64_t d = shape.dimensions_size() - 1; d >= 0; --d) {
    const int64_t size = shape.dimensions(static_cast<int>(d));
    index[d] = size == 0 ? 0 : linear % size;
    linear = size == 0 ? 0 : linear / size;
  }
  return index;
}

std::string OutputName(const ShapeIndex& index) {
  return fmt::format("output {}", ShapeIndexToString(index));
}

// Whether two real values of float type `type` match under `tolerance`;
// `abs_diff` receives |a - e| when it is meaningful (else stays unchanged).
bool FloatsMatch(PrimitiveType type, double expected, double actual, const FloatTolerance& tolerance,
                 double* abs_diff) {
  if (expected == actual) {
    if (std::isfinite(expected)) *abs_diff = 0;
    return true;
  }
  if (std::isnan(expected) && std::isnan(actual)) return true;
  if (!std::isfinite(expected) || !std::isfinite(actual)) {
    *abs_diff = std::numeric_limits<double>::infinity();
    return false;
  }
  const double diff = std::fabs(actual - expected);
  *abs_diff = diff;
  if (diff <= tolerance.absolute + tolerance.relative * std::fabs(expected)) return true;
  return UlpDistance(type, expected, actual) <= tolerance.max_ulps;
}

struct LeafMismatch {
  int64_t count = 0;
  int64_t first = -1;
};

absl::Status CompareLeaf(const Literal& expected, const Literal& actual, const ShapeIndex& index,
                         const LiteralComparisonOptions& options, LiteralComparisonSummary* summary) {
  const PrimitiveType type = expected.element_type();
  const int64_t count = expected.element_count();
  summary->outputs += 1;
  summary->elements += count;
  LeafMismatch mismatch;
  const auto record = [&](bool match, int64_t i) {
    if (match) return;
    if (mismatch.count++ == 0) mismatch.first = i;
  };
  const bool is_float = IsFloatingPoint(type) || IsComplex(type);
  const PrimitiveType component = primitive_util::ComplexComponentType(type);
  FloatTolerance tolerance = options.float_tolerance.value_or(DefaultFloatTolerance(component));
  if (is_float && tolerance.relative_to_largest > 0) {
    // Fold the output-wide term into the absolute one.
    double largest = 0;
    for (int64_t i = 0; i < count; ++i) {
      const double e = IsComplex(type) ? std::abs(expected.GetAsComplex(i)) : expected.GetAsDouble(i);
      if (std::isfinite(e)) largest = std::max(largest, std::fabs(e));
    }
    tolerance.absolute += tolerance.relative_to_largest * largest;
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!is_float) {
      record(expected.GetAsUint64(i) == actual.GetAsUint64(i), i);
      continue;
    }
    double diff = 0;
    bool match;
    if (IsComplex(type)) {
      const std::complex<double> e = expected.GetAsComplex(i);
      const std::complex<double> a = actual.GetAsComplex(i);
      double imag_diff = 0;
      match = FloatsMatch(component, e.real(), a.real(), tolerance, &diff);
      match = FloatsMatch(component, e.imag(), a.imag(), tolerance, &imag_diff) && match;
      diff = std::max(diff, imag_diff);
    } else {
      match = FloatsMatch(type, expected.GetAsDouble(i), actual.GetAsDouble(i), tolerance, &diff);
    }
    summary->max_abs_diff = std::max(summary->max_abs_diff, diff);
    record(match, i);
  }
  if (mismatch.count == 0) return absl::OkStatus();
  const int64_t i = mismatch.first;
  std::string detail;
  if (is_float) {
    detail = fmt::format(" (tolerance: |diff| <= {:g} + {:g} * |expected|, or within {} ULP)",
                         tolerance.absolute, tolerance.relative, tolerance.max_ulps);
  }
  return absl::InvalidArgumentError(fmt::format(
      "{} {}: {} of {} element{} differ; first at index {{{}}}: expected {}, actual {}{}",
      OutputName(index), expected.shape().ToString(false), mismatch.count, count,
      count == 1 ? "" : "s", fmt::join(MultiIndex(expected.shape(), i), ","),
      expected.ElementToString(i), actual.ElementToString(i), detail));
}

absl::Status CompareRecursively(const Literal& expected, const Literal& actual, ShapeIndex& index,
                                const LiteralComparisonOptions& options,
                                LiteralComparisonSummary* summary) {
  const Shape& e = expected.shape();
  const Shape& a = actual.shape();
  if (e.IsTuple() != a.IsTuple() ||
      (e.IsTuple() && e.tuple_shapes_size() != a.tuple_shapes_size()) ||
      (!e.IsTuple() && !ShapeUtil::EqualIgnoringLayout(e, a))) {
    return absl::InvalidArgumentError(fmt::format("{}: expected shape {}, actual shape {}",
                                                  OutputName(index), e.ToString(false),
                                                  a.ToString(false)));
  }
  if (e.IsTuple()) {
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      index.push_back(static_cast<int64_t>(i));
      absl::Status status = CompareRecursively(expected.tuple_elements()[i],
                                               actual.tuple_elements()[i], index, options, summary);
      index.pop_back();
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (!e.IsArray()) return absl::OkStatus();  // tokens carry no values
  if (expected.is_elided() || actual.is_elided()) {
    return absl::InvalidArgumentError(fmt::format("{}: the {} literal is elided (has no values)",
                                                  OutputName(index),
                                                  expected.is_elided() ? "expected" : "actual"));
  }
  return CompareLeaf(expected, actual, index, options, summary);
}

}  // namespace

FloatTolerance DefaultFloatTolerance(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F64: return {1e-9, 1e-12, 8, 1e-12};
    case PrimitiveType::F32: return {1e-5, 1e-6, 8, 1e-5};
    case PrimitiveType::F16: return {1e-2, 1e-3, 4, 1e-3};
    case PrimitiveType::BF16: return {2e-2, 1e-2, 4, 1e-2};
    default: return {0.25, 0.125, 2, 0};
  }
}

int64_t UlpDistance(PrimitiveType type, double a, double b) {
  const int64_t x = OrderedBits(type, a);
  const int64_t y = OrderedBits(type, b);
  // The difference of two f64 patterns can exceed int64; saturate.
  const __int128 distance = static_cast<__int128>(x) - static_cast<__int128>(y);
  const __int128 magnitude = distance < 0 ? -distance : distance;
  return magnitude > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
                                                         : static_cast<int64_t>(magnitude);
}

absl::Status CompareLiterals(const Literal& expected, const Literal& actual,
                             const LiteralComparisonOptions& options,
                             LiteralComparisonSummary* summary) {
  LiteralComparisonSummary local;
  if (summary == nullptr) summary = &local;
  *summary = LiteralComparisonSummary{};
  ShapeIndex index;
  return CompareRecursively(expected, actual, index, options, summary);
}

}  // namespace hmo
