#include "hmo/ir/shape.h"
#include "str_cat.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

std::string ShapeIndexToString(const ShapeIndex& index) {
  return StrCat("{", absl::StrJoin(index, ","), "}");
}

Shape::Shape(PrimitiveType element_type, std::vector<int64_t> dimensions)
    : element_type_(element_type),
      dimensions_(std::move(dimensions)),
      dynamic_dimensions_(dimensions_.size(), false) {}

Shape::Shape(PrimitiveType element_type, std::vector<int64_t> dimensions, Layout layout)
    : Shape(element_type, std::move(dimensions)) {
  layout_ = std::move(layout);
}

Shape::Shape(std::vector<Shape> tuple_shapes)
    : element_type_(PrimitiveType::TUPLE), tuple_shapes_(std::move(tuple_shapes)) {}

Shape Shape::MakeToken() {
  Shape s;
  s.element_type_ = PrimitiveType::TOKEN;
  return s;
}

void Shape::add_dimensions(int64_t size, bool is_dynamic) {
  dimensions_.push_back(size);
  dynamic_dimensions_.push_back(is_dynamic);
}

bool Shape::is_static() const {
  if (IsTuple()) {
    for (const Shape& s : tuple_shapes_) {
      if (!s.is_static()) return false;
    }
    return true;
  }
  for (bool d : dynamic_dimensions_) {
    if (d) return false;
  }
  return true;
}

Layout* Shape::mutable_layout() {
  if (!layout_) layout_.emplace();
  return &*layout_;
}

namespace {
void AppendShape(const Shape& s, bool print_layout, std::string* out) {
  if (s.IsTuple()) {
    out->push_back('(');
    for (int64_t i = 0; i < s.tuple_shapes_size(); ++i) {
      if (i > 0) {
        out->append(", ");
        // XLA marks every fifth element of long tuples to keep them readable.
        if (i % 5 == 0) absl::StrAppendFormat(out, "/*index=%d*/", i);
      }
      AppendShape(s.tuple_shapes(i), print_layout, out);
    }
    out->push_back(')');
    return;
  }
  out->append(PrimitiveTypeName(s.element_type()));
  out->push_back('[');
  for (int64_t i = 0; i < s.dimensions_size(); ++i) {
    if (i > 0) out->push_back(',');
    if (s.dimensions(i) == Shape::kUnboundedSize) {
      out->push_back('?');
      continue;
    }
    if (s.is_dynamic_dimension(i)) out->append("<=");
    StrAppend(out, s.dimensions(i));
  }
  out->push_back(']');
  if (print_layout && s.IsArray() && s.has_layout()) {
    // Scalars drop an empty "{}" layout, as XLA prints them.
    if (s.rank() == 0 && s.layout().HasOnlyMinorToMajor() && s.layout().minor_to_major().empty()) {
      return;
    }
    out->append(s.layout().ToString());
  }
}
}  // namespace

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendShape(*this, print_layout, &out);
  return out;
}

bool Shape::operator==(const Shape& o) const {
  return element_type_ == o.element_type_ && dimensions_ == o.dimensions_ &&
         dynamic_dimensions_ == o.dynamic_dimensions_ && layout_ == o.layout_ &&
         tuple_shapes_ == o.tuple_shapes_;
}

int64_t ShapeUtil::ElementsIn(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) n *= (d == Shape::kUnboundedSize ? 0 : d);
  return n;
}

bool ShapeUtil::IsEffectiveScalar(const Shape& shape) {
  return shape.IsArray() && ElementsIn(shape) == 1;
}

int64_t ShapeUtil::ByteSizeOfElements(const Shape& shape) {
  int64_t elements = ElementsIn(shape);
  if (shape.has_layout() && shape.layout().element_size_in_bits() != 0) {
    int64_t bits = elements * shape.layout().element_size_in_bits();
    return (bits + 7) / 8;
  }
  return elements * ByteWidth(shape.element_type());
}

int64_t ShapeUtil::ByteSizeOfTupleIndexTable(const Shape& shape, int64_t pointer_size) {
  return pointer_size * shape.tuple_shapes_size();
}

int64_t ShapeUtil::ByteSizeOf(const Shape& shape, int64_t pointer_size) {
  if (shape.IsTuple()) return ByteSizeOfTupleIndexTable(shape, pointer_size);
  if (shape.IsArray()) return ByteSizeOfElements(shape);
  return 0;  // token, opaque
}

bool ShapeUtil::IndexIsValid(const Shape& shape, const ShapeIndex& index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_shapes_size()) return false;
    s = &s->tuple_shapes(i);
  }
  return true;
}

const Shape& ShapeUtil::GetSubshape(const Shape& shape, const ShapeIndex& index) {
  const Shape* s = &shape;
  for (int64_t i : index) s = &s->tuple_shapes(i);
  return *s;
}

Shape* ShapeUtil::GetMutableSubshape(Shape* shape, const ShapeIndex& index) {
  Shape* s = shape;
  for (int64_t i : index) s = s->mutable_tuple_shapes(i);
  return s;
}

namespace {
void ForEachSubshapeImpl(const Shape& shape, ShapeIndex* index,
                         const std::function<void(const Shape&, const ShapeIndex&)>& fn) {
  fn(shape, *index);
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      index->push_back(i);
      ForEachSubshapeImpl(shape.tuple_shapes(i), index, fn);
      index->pop_back();
    }
  }
}
void ForEachMutableSubshapeImpl(Shape* shape, ShapeIndex* index,
                                const std::function<void(Shape*, const ShapeIndex&)>& fn) {
  fn(shape, *index);
  if (shape->IsTuple()) {
    for (int64_t i = 0; i < shape->tuple_shapes_size(); ++i) {
      index->push_back(i);
      ForEachMutableSubshapeImpl(shape->mutable_tuple_shapes(i), index, fn);
      index->pop_back();
    }
  }
}
absl::Status ForEachSubshapeWithStatusImpl(
    const Shape& shape, ShapeIndex* index,
    const std::function<absl::Status(const Shape&, const ShapeIndex&)>& fn) {
  absl::Status st = fn(shape, *index);
  if (!st.ok()) return st;
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      index->push_back(i);
      st = ForEachSubshapeWithStatusImpl(shape.tuple_shapes(i), index, fn);
      index->pop_back();
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}
}  // namespace

void ShapeUtil::ForEachSubshape(const Shape& shape,
                                const std::function<void(const Shape&, const ShapeIndex&)>& fn) {
  ShapeIndex index;
  ForEachSubshapeImpl(shape, &index, fn);
}

void ShapeUtil::ForEachMutableSubshape(Shape* shape,
                                       const std::function<void(Shape*, const ShapeIndex&)>& fn) {
  ShapeIndex index;
  ForEachMutableSubshapeImpl(shape, &index, fn);
}

absl::Status ShapeUtil::ForEachSubshapeWithStatus(
    const Shape& shape, const std::function<absl::Status(const Shape&, const ShapeIndex&)>& fn) {
  ShapeIndex index;
  return ForEachSubshapeWithStatusImpl(shape, &index, fn);
}

void ShapeUtil::ForEachLeafShape(const Shape& shape,
                                 const std::function<void(const Shape&, const ShapeIndex&)>& fn) {
  ForEachSubshape(shape, [&](const Shape& s, const ShapeIndex& i) {
    if (!s.IsTuple()) fn(s, i);
  });
}

std::vector<ShapeUtil::IndexedShape> ShapeUtil::GetLeafShapes(const Shape& shape) {
  std::vector<IndexedShape> out;
  ForEachLeafShape(shape, [&](const Shape& s, const ShapeIndex& i) { out.push_back({i, s}); });
  return out;
}

int64_t ShapeUtil::GetLeafCount(const Shape& shape) {
  int64_t n = 0;
  ForEachLeafShape(shape, [&](const Shape&, const ShapeIndex&) { ++n; });
  return n;
}

bool ShapeUtil::EqualIgnoringLayout(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!EqualIgnoringLayout(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  return a.dimensions() == b.dimensions() && a.dynamic_dimensions() == b.dynamic_dimensions();
}

bool ShapeUtil::Compatible(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!Compatible(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a.dimensions(i) == b.dimensions(i)) continue;
    // A dynamic dimension accepts any size up to its bound.
    if (a.is_dynamic_dimension(i) || b.is_dynamic_dimension(i)) continue;
    return false;
  }
  return true;
}

void ShapeUtil::SetDefaultLayoutsIfMissing(Shape* shape) {
  ForEachMutableSubshape(shape, [](Shape* s, const ShapeIndex&) {
    if (s->IsArray() && !s->has_layout()) s->set_layout(LayoutUtil::MakeDescendingLayout(s->rank()));
  });
}

Layout ShapeUtil::LayoutOrDefault(const Shape& shape) {
  if (shape.has_layout()) return shape.layout();
  return LayoutUtil::MakeDescendingLayout(shape.rank());
}

Shape ShapeUtil::MakeShapeWithDescendingLayout(PrimitiveType type, std::vector<int64_t> dims) {
  int64_t rank = static_cast<int64_t>(dims.size());
  return Shape(type, std::move(dims), LayoutUtil::MakeDescendingLayout(rank));
}

}  // namespace hmo
