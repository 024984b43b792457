#include "result_summary.h"

#include "fmt/format.h"

namespace hmo::cli {
namespace {

std::string DescribeArray(const Literal& leaf, int max_values) {
  const int64_t count = leaf.element_count();
  std::vector<std::string> values;
  for (int64_t i = 0; i < count && i < max_values; ++i) values.push_back(leaf.ElementToString(i));
  if (count > max_values) values.push_back("...");
  const PrimitiveType type = leaf.element_type();
  std::string sum;
  if (IsFloatingPoint(type) || IsComplex(type)) {
    std::complex<double> total = 0;
    for (int64_t i = 0; i < count; ++i) total += leaf.GetAsComplex(i);
    sum = IsComplex(type) ? fmt::format("({:g}, {:g})", total.real(), total.imag())
                          : fmt::format("{:g}", total.real());
  } else if (primitive_util::IsUnsignedIntegralType(type)) {
    uint64_t total = 0;  // wraps like the type would, past 2^64
    for (int64_t i = 0; i < count; ++i) total += leaf.GetAsUint64(i);
    sum = std::to_string(total);
  } else {
    int64_t total = 0;
    for (int64_t i = 0; i < count; ++i) total += leaf.GetAsInt64(i);
    sum = std::to_string(total);
  }
  return fmt::format("{}: {} sum {}", leaf.shape().ToString(false),
                     values.empty() ? std::string("(empty)") : fmt::format("{}", fmt::join(values, ", ")),
                     sum);
}

void DescribeLeaves(const Literal& literal, ShapeIndex& index, std::string_view indent,
                    int max_values, std::string& out) {
  if (literal.shape().IsTuple()) {
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      index.push_back(static_cast<int64_t>(i));
      DescribeLeaves(literal.tuple_elements()[i], index, indent, max_values, out);
      index.pop_back();
    }
    return;
  }
  if (!literal.shape().IsArray()) return;
  out += fmt::format("{}output {} {}\n", indent, ShapeIndexToString(index),
                     literal.is_elided() ? literal.shape().ToString(false) + ": {...}"
                                         : DescribeArray(literal, max_values));
}

}  // namespace

std::string DescribeResultLeaves(const Literal& result, std::string_view indent, int max_values) {
  std::string out;
  ShapeIndex index;
  DescribeLeaves(result, index, indent, max_values, out);
  return out;
}

}  // namespace hmo::cli
