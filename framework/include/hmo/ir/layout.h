#ifndef HMO_IR_LAYOUT_H_
#define HMO_IR_LAYOUT_H_

// The physical layout of an array: dimension order, tiling, element packing
// and memory space. Text form (HLO): `{minor_to_major[:extras]}` with extras in
// this print order: `D(...)` dim level types (kept verbatim), `T(8,128)(2,1)`
// tiles, `L(n)` tail padding, `#(s32)` index type, `*(s32)` pointer type,
// `E(n)` element bits, `S(n)` memory space, `SC(d:i,j)` split configs,
// `P(shape)` physical shape, `M(n)` dynamic metadata prefix bytes.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hmo/ir/primitive_type.h"

namespace hmo {

class Shape;

// One tile of a tiled layout: the tile's extent per (minor-most) dimension.
// kCombineDimension (`*` in text) means "combine this dimension with the
// next major one".
class Tile {
 public:
  static constexpr int64_t kCombineDimension = INT64_MIN;

  Tile() = default;
  explicit Tile(std::vector<int64_t> dimensions) : dimensions_(std::move(dimensions)) {}

  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  int64_t dimension(int i) const { return dimensions_[i]; }

  // "(8,128)" / "(2,*)".
  std::string ToString() const;

  bool operator==(const Tile& other) const { return dimensions_ == other.dimensions_; }
  bool operator!=(const Tile& other) const { return !(*this == other); }

 private:
  std::vector<int64_t> dimensions_;
};

// A split of one dimension at the given indices (`SC(dim:i,j)` in text); used
// by TPU layouts to place parts of an array in different memories.
class SplitConfig {
 public:
  SplitConfig() = default;
  SplitConfig(int64_t dimension, std::vector<int64_t> split_indices)
      : dimension_(dimension), split_indices_(std::move(split_indices)) {}

  int64_t dimension() const { return dimension_; }
  void set_dimension(int64_t d) { dimension_ = d; }
  const std::vector<int64_t>& split_indices() const { return split_indices_; }
  std::vector<int64_t>* mutable_split_indices() { return &split_indices_; }

  // "(0:1,2)" - without the "SC" prefix, which Layout::ToString adds.
  std::string ToString() const;

  bool operator==(const SplitConfig& o) const {
    return dimension_ == o.dimension_ && split_indices_ == o.split_indices_;
  }
  bool operator!=(const SplitConfig& o) const { return !(*this == o); }

 private:
  int64_t dimension_ = 0;
  std::vector<int64_t> split_indices_;
};

// Layout of an array shape. A default-constructed Layout has no dimensions
// (the layout of a scalar). Equality compares every field.
class Layout {
 public:
  // Memory space numbers. 0 is the default (device) memory and is not printed.
  static constexpr int64_t kDefaultMemorySpace = 0;
  // XLA's convention for host memory (`S(5)`), used by host offloading.
  static constexpr int64_t kHostMemorySpace = 5;
  // Generic "alternate memory" space used by memory-space assignment (`S(1)`).
  static constexpr int64_t kAlternateMemorySpace = 1;

  Layout() = default;
  explicit Layout(std::vector<int64_t> minor_to_major) : minor_to_major_(std::move(minor_to_major)) {}
  Layout(const Layout& other);
  Layout& operator=(const Layout& other);
  Layout(Layout&&) noexcept = default;
  Layout& operator=(Layout&&) noexcept = default;
  ~Layout();

  // minor_to_major()[0] is the fastest-varying dimension.
  const std::vector<int64_t>& minor_to_major() const { return minor_to_major_; }
  std::vector<int64_t>* mutable_minor_to_major() { return &minor_to_major_; }
  int64_t minor_to_major(int i) const { return minor_to_major_[i]; }
  int minor_to_major_size() const { return static_cast<int>(minor_to_major_.size()); }
  Layout& add_minor_to_major(int64_t d) { minor_to_major_.push_back(d); return *this; }
  Layout& clear_minor_to_major() { minor_to_major_.clear(); return *this; }

  const std::vector<Tile>& tiles() const { return tiles_; }
  std::vector<Tile>* mutable_tiles() { return &tiles_; }
  Layout& add_tile(Tile t) { tiles_.push_back(std::move(t)); return *this; }
  Layout& clear_tiles() { tiles_.clear(); return *this; }

  // `L(n)`; 1 means none (not printed).
  int64_t tail_padding_alignment_in_elements() const { return tail_padding_alignment_in_elements_; }
  Layout& set_tail_padding_alignment_in_elements(int64_t v) { tail_padding_alignment_in_elements_ = v; return *this; }

  // `#(type)` / `*(type)`; PRIMITIVE_TYPE_INVALID means unset (not printed).
  PrimitiveType index_primitive_type() const { return index_primitive_type_; }
  Layout& set_index_primitive_type(PrimitiveType t) { index_primitive_type_ = t; return *this; }
  PrimitiveType pointer_primitive_type() const { return pointer_primitive_type_; }
  Layout& set_pointer_primitive_type(PrimitiveType t) { pointer_primitive_type_ = t; return *this; }

  // `E(n)`: bits per element when packed; 0 means unpacked (not printed).
  int64_t element_size_in_bits() const { return element_size_in_bits_; }
  Layout& set_element_size_in_bits(int64_t v) { element_size_in_bits_ = v; return *this; }

  // `S(n)`; kDefaultMemorySpace (0) is not printed.
  int64_t memory_space() const { return memory_space_; }
  Layout& set_memory_space(int64_t v) { memory_space_ = v; return *this; }

  const std::vector<SplitConfig>& split_configs() const { return split_configs_; }
  std::vector<SplitConfig>* mutable_split_configs() { return &split_configs_; }
  Layout& add_split_config(SplitConfig c) { split_configs_.push_back(std::move(c)); return *this; }
  Layout& clear_split_configs() { split_configs_.clear(); return *this; }

  // `P(shape)`: an optional physical shape (deep-copied with the layout).
  bool has_physical_shape() const { return physical_shape_ != nullptr; }
  // Precondition: has_physical_shape().
  const Shape& physical_shape() const { return *physical_shape_; }
  Layout& set_physical_shape(const Shape& shape);
  Layout& clear_physical_shape();

  // `M(n)`; 0 is not printed.
  int64_t dynamic_shape_metadata_prefix_bytes() const { return dynamic_shape_metadata_prefix_bytes_; }
  Layout& set_dynamic_shape_metadata_prefix_bytes(int64_t v) { dynamic_shape_metadata_prefix_bytes_ = v; return *this; }

  // `D(...)` dim level types of sparse layouts: not interpreted by hmo, kept
  // as the text between the parentheses so it prints back unchanged.
  const std::string& dim_level_types_text() const { return dim_level_types_text_; }
  Layout& set_dim_level_types_text(std::string t) { dim_level_types_text_ = std::move(t); return *this; }

  // True when only minor_to_major is set (no tiles or other extras).
  bool HasOnlyMinorToMajor() const;

  // "{1,0:T(8,128)(2,1)E(4)S(1)}".
  std::string ToString() const;

  // Field-wise equality.
  bool operator==(const Layout& other) const;
  bool operator!=(const Layout& other) const { return !(*this == other); }

  // Equality ignoring the memory space (useful for checking that a copy only
  // moves data between memories).
  bool EqualIgnoringMemorySpace(const Layout& other) const;

 private:
  std::vector<int64_t> minor_to_major_;
  std::vector<Tile> tiles_;
  int64_t tail_padding_alignment_in_elements_ = 1;
  PrimitiveType index_primitive_type_ = PrimitiveType::PRIMITIVE_TYPE_INVALID;
  PrimitiveType pointer_primitive_type_ = PrimitiveType::PRIMITIVE_TYPE_INVALID;
  int64_t element_size_in_bits_ = 0;
  int64_t memory_space_ = 0;
  std::vector<SplitConfig> split_configs_;
  std::unique_ptr<Shape> physical_shape_;
  int64_t dynamic_shape_metadata_prefix_bytes_ = 0;
  std::string dim_level_types_text_;
};

namespace LayoutUtil {
// Major-to-minor default layout {rank-1, ..., 0}.
Layout MakeDescendingLayout(int64_t rank);
}  // namespace LayoutUtil

}  // namespace hmo

#endif  // HMO_IR_LAYOUT_H_
