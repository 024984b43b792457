#ifndef HMO_IR_SHAPE_H_
#define HMO_IR_SHAPE_H_

// Shapes of HLO values: arrays (element type + dimensions + optional layout),
// tuples, tokens and opaque values; ShapeIndex addressing into nested tuples;
// and ShapeUtil, the helpers every analysis uses (byte sizes, sub-shapes,
// traversal, comparison).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/primitive_type.h"

namespace hmo {

// Path into a nested tuple shape: {} is the whole shape, {1, 0} is element 0
// of element 1. Comparison is lexicographic, which orders indices the way a
// pre-order walk of the shape visits them.
using ShapeIndex = std::vector<int64_t>;

// "{}" / "{1,0}".
std::string ShapeIndexToString(const ShapeIndex& index);

class Shape {
 public:
  // Size written for an unbounded dynamic dimension (`?` in text).
  static constexpr int64_t kUnboundedSize = INT64_MIN;

  // An invalid shape (element_type PRIMITIVE_TYPE_INVALID).
  Shape() = default;
  // An array shape without layout; all dimensions static.
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions);
  // An array shape with a layout.
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions, Layout layout);
  // A tuple shape.
  explicit Shape(std::vector<Shape> tuple_shapes);

  static Shape MakeTuple(std::vector<Shape> elements) { return Shape(std::move(elements)); }
  static Shape MakeToken();
  static Shape MakeScalar(PrimitiveType type) { return Shape(type, {}); }

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsTuple() const { return element_type_ == PrimitiveType::TUPLE; }
  bool IsToken() const { return element_type_ == PrimitiveType::TOKEN; }
  bool IsOpaque() const { return element_type_ == PrimitiveType::OPAQUE_TYPE; }
  bool IsEmptyTuple() const { return IsTuple() && tuple_shapes_.empty(); }
  // Array of rank 0.
  bool IsScalar() const { return IsArray() && dimensions_.empty(); }

  // Array dimensions (bounds for dynamic dimensions). Empty for non-arrays.
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int i) const { return dimensions_[i]; }
  int64_t dimensions_size() const { return static_cast<int64_t>(dimensions_.size()); }
  int64_t rank() const { return dimensions_size(); }
  // Precondition: IsArray(). Keeps the dynamic flags in step.
  void add_dimensions(int64_t size, bool is_dynamic = false);
  void set_dimensions(int i, int64_t size) { dimensions_[i] = size; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }

  // `<=N` (bounded dynamic, bound N) or `?` (unbounded) dimensions.
  bool is_dynamic_dimension(int i) const { return dynamic_dimensions_[i]; }
  void set_dynamic_dimension(int i, bool d) { dynamic_dimensions_[i] = d; }
  const std::vector<bool>& dynamic_dimensions() const { return dynamic_dimensions_; }
  bool is_static() const;  // No dynamic dimension anywhere (recursively).
  bool is_unbounded_dynamic_dimension(int i) const { return dimensions_[i] == kUnboundedSize; }

  // Layout: optional. Shapes parsed from text without `{...}` have none; code
  // that needs one should treat "none" as the descending default layout.
  bool has_layout() const { return layout_.has_value(); }
  // Precondition: has_layout().
  const Layout& layout() const { return *layout_; }
  // Creates an empty layout when none is present.
  Layout* mutable_layout();
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  void clear_layout() { layout_.reset(); }
  // Memory space of an array's layout; 0 when there is no layout.
  int64_t memory_space() const { return layout_ ? layout_->memory_space() : 0; }

  // Tuple elements (empty for non-tuples).
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int i) const { return tuple_shapes_[i]; }
  int64_t tuple_shapes_size() const { return static_cast<int64_t>(tuple_shapes_.size()); }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }
  Shape* mutable_tuple_shapes(int i) { return &tuple_shapes_[i]; }
  void add_tuple_shapes(Shape s) { tuple_shapes_.push_back(std::move(s)); }

  // Text form: "f32[2,3]{1,0}", "(f32[], s32[4])", "token[]", "opaque[]".
  // Scalars print no "{}" layout unless it has extras (e.g. "{:T(128)}").
  std::string ToString(bool print_layout = true) const;

  // Strict equality: element type, dimensions, dynamic flags, layout presence
  // and value, tuple elements.
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  PrimitiveType element_type_ = PrimitiveType::PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dimensions_;
  std::vector<bool> dynamic_dimensions_;
  std::optional<Layout> layout_;
  std::vector<Shape> tuple_shapes_;
};

class ShapeUtil {
 public:
  // Bytes of a buffer holding `shape` (not recursive for tuples):
  // arrays: elements x ByteWidth, or ceil(elements x E(n) / 8) when the layout
  // packs elements (element_size_in_bits != 0 and < 8 * ByteWidth);
  // tuples: pointer_size x number of direct elements; token/opaque: 0.
  // Dynamic dimensions count at their bound.
  static int64_t ByteSizeOf(const Shape& shape, int64_t pointer_size = 8);
  // Bytes of the array elements only; precondition: IsArray().
  static int64_t ByteSizeOfElements(const Shape& shape);
  // Bytes of the tuple index table: pointer_size x elements.
  static int64_t ByteSizeOfTupleIndexTable(const Shape& shape, int64_t pointer_size);

  // Product of the dimensions (1 for scalars). Precondition: IsArray().
  static int64_t ElementsIn(const Shape& shape);
  // True for arrays whose element count is 1 (f32[], f32[1,1]).
  static bool IsEffectiveScalar(const Shape& shape);
  static bool IsScalar(const Shape& shape) { return shape.IsScalar(); }

  // Sub-shape at `index`. Precondition: IndexIsValid(shape, index).
  static const Shape& GetSubshape(const Shape& shape, const ShapeIndex& index);
  static Shape* GetMutableSubshape(Shape* shape, const ShapeIndex& index);
  static bool IndexIsValid(const Shape& shape, const ShapeIndex& index);
  // Pre-order walk over every sub-shape (the shape itself first, at {}).
  static void ForEachSubshape(const Shape& shape,
                              const std::function<void(const Shape&, const ShapeIndex&)>& fn);
  static void ForEachMutableSubshape(Shape* shape,
                                     const std::function<void(Shape*, const ShapeIndex&)>& fn);
  // Like ForEachSubshape but stops at the first error and returns it.
  static absl::Status ForEachSubshapeWithStatus(
      const Shape& shape, const std::function<absl::Status(const Shape&, const ShapeIndex&)>& fn);
  // Pre-order walk over non-tuple sub-shapes only (arrays, tokens, opaque).
  static void ForEachLeafShape(const Shape& shape,
                               const std::function<void(const Shape&, const ShapeIndex&)>& fn);
  struct IndexedShape {
    ShapeIndex index;
    Shape shape;
  };
  static std::vector<IndexedShape> GetLeafShapes(const Shape& shape);
  // Number of leaves (a non-tuple has 1; an empty tuple 0).
  static int64_t GetLeafCount(const Shape& shape);
  // Number of direct tuple elements. Precondition: IsTuple().
  static int64_t TupleElementCount(const Shape& shape) { return shape.tuple_shapes_size(); }

  // Same element types, dimensions and dynamic flags, recursively; layouts
  // are ignored.
  static bool Equal(const Shape& a, const Shape& b) { return EqualIgnoringLayout(a, b); }
  static bool EqualIgnoringLayout(const Shape& a, const Shape& b);
  // Strict equality including layouts (missing layout != present layout).
  static bool EqualIncludingLayout(const Shape& a, const Shape& b) { return a == b; }
  // Like EqualIgnoringLayout but a dynamic dimension matches a static one of
  // any size up to its bound (XLA's Compatible, used for operand checks).
  static bool Compatible(const Shape& a, const Shape& b);

  static std::string HumanString(const Shape& s) { return s.ToString(false); }
  static std::string HumanStringWithLayout(const Shape& s) { return s.ToString(true); }

  // Sets the descending default layout on every array sub-shape lacking one.
  static void SetDefaultLayoutsIfMissing(Shape* shape);
  // Returns the shape's layout or the descending default for its rank.
  static Layout LayoutOrDefault(const Shape& shape);

  static Shape MakeShape(PrimitiveType type, std::vector<int64_t> dims) { return Shape(type, std::move(dims)); }
  static Shape MakeShapeWithDescendingLayout(PrimitiveType type, std::vector<int64_t> dims);
  static Shape MakeTupleShape(std::vector<Shape> elements) { return Shape(std::move(elements)); }
};

}  // namespace hmo

#endif  // HMO_IR_SHAPE_H_
