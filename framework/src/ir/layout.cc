#include "hmo/ir/layout.h"
#include "str_cat.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/ir/shape.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

std::string Tile::ToString() const {
  std::string out = "(";
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (i > 0) out += ",";
    if (dimensions_[i] == kCombineDimension) {
      out += "*";
    } else {
      StrAppend(&out, dimensions_[i]);
    }
  }
  out += ")";
  return out;
}

std::string SplitConfig::ToString() const {
  return StrCat("(", dimension_, ":", absl::StrJoin(split_indices_, ","), ")");
}

Layout::Layout(const Layout& other)
    : minor_to_major_(other.minor_to_major_),
      tiles_(other.tiles_),
      tail_padding_alignment_in_elements_(other.tail_padding_alignment_in_elements_),
      index_primitive_type_(other.index_primitive_type_),
      pointer_primitive_type_(other.pointer_primitive_type_),
      element_size_in_bits_(other.element_size_in_bits_),
      memory_space_(other.memory_space_),
      split_configs_(other.split_configs_),
      physical_shape_(other.physical_shape_ ? std::make_unique<Shape>(*other.physical_shape_)
                                            : nullptr),
      dynamic_shape_metadata_prefix_bytes_(other.dynamic_shape_metadata_prefix_bytes_),
      dim_level_types_text_(other.dim_level_types_text_) {}

Layout& Layout::operator=(const Layout& other) {
  if (this != &other) {
    Layout copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Layout::~Layout() = default;

Layout& Layout::set_physical_shape(const Shape& shape) {
  physical_shape_ = std::make_unique<Shape>(shape);
  return *this;
}

Layout& Layout::clear_physical_shape() {
  physical_shape_.reset();
  return *this;
}

bool Layout::HasOnlyMinorToMajor() const {
  return tiles_.empty() && tail_padding_alignment_in_elements_ == 1 &&
         index_primitive_type_ == PrimitiveType::PRIMITIVE_TYPE_INVALID &&
         pointer_primitive_type_ == PrimitiveType::PRIMITIVE_TYPE_INVALID &&
         element_size_in_bits_ == 0 && memory_space_ == 0 && split_configs_.empty() &&
         !physical_shape_ && dynamic_shape_metadata_prefix_bytes_ == 0 &&
         dim_level_types_text_.empty();
}

std::string Layout::ToString() const {
  std::string out = "{";
  out += absl::StrJoin(minor_to_major_, ",");
  bool colon = false;
  auto extra = [&]() {
    if (!colon) {
      out += ":";
      colon = true;
    }
  };
  if (!dim_level_types_text_.empty()) {
    extra();
    StrAppend(&out, "D(", dim_level_types_text_, ")");
  }
  if (!tiles_.empty()) {
    extra();
    out += "T";
    for (const Tile& t : tiles_) out += t.ToString();
  }
  if (tail_padding_alignment_in_elements_ != 1) {
    extra();
    StrAppend(&out, "L(", tail_padding_alignment_in_elements_, ")");
  }
  if (index_primitive_type_ != PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    extra();
    StrAppend(&out, "#(", PrimitiveTypeName(index_primitive_type_), ")");
  }
  if (pointer_primitive_type_ != PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    extra();
    StrAppend(&out, "*(", PrimitiveTypeName(pointer_primitive_type_), ")");
  }
  if (element_size_in_bits_ != 0) {
    extra();
    StrAppend(&out, "E(", element_size_in_bits_, ")");
  }
  if (memory_space_ != 0) {
    extra();
    StrAppend(&out, "S(", memory_space_, ")");
  }
  for (const SplitConfig& sc : split_configs_) {
    extra();
    StrAppend(&out, "SC", sc.ToString());
  }
  if (physical_shape_) {
    extra();
    StrAppend(&out, "P(", physical_shape_->ToString(true), ")");
  }
  if (dynamic_shape_metadata_prefix_bytes_ != 0) {
    extra();
    StrAppend(&out, "M(", dynamic_shape_metadata_prefix_bytes_, ")");
  }
  out += "}";
  return out;
}

bool Layout::operator==(const Layout& o) const {
  if (static_cast<bool>(physical_shape_) != static_cast<bool>(o.physical_shape_)) return false;
  if (physical_shape_ && !(*physical_shape_ == *o.physical_shape_)) return false;
  return minor_to_major_ == o.minor_to_major_ && tiles_ == o.tiles_ &&
         tail_padding_alignment_in_elements_ == o.tail_padding_alignment_in_elements_ &&
         index_primitive_type_ == o.index_primitive_type_ &&
         pointer_primitive_type_ == o.pointer_primitive_type_ &&
         element_size_in_bits_ == o.element_size_in_bits_ && memory_space_ == o.memory_space_ &&
         split_configs_ == o.split_configs_ &&
         dynamic_shape_metadata_prefix_bytes_ == o.dynamic_shape_metadata_prefix_bytes_ &&
         dim_level_types_text_ == o.dim_level_types_text_;
}

bool Layout::EqualIgnoringMemorySpace(const Layout& other) const {
  Layout a(*this);
  a.set_memory_space(other.memory_space());
  return a == other;
}

namespace LayoutUtil {
Layout MakeDescendingLayout(int64_t rank) {
  std::vector<int64_t> m2m;
  m2m.reserve(rank);
  for (int64_t i = rank - 1; i >= 0; --i) m2m.push_back(i);
  return Layout(std::move(m2m));
}
}  // namespace LayoutUtil

}  // namespace hmo
