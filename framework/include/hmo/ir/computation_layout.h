#ifndef HMO_IR_COMPUTATION_LAYOUT_H_
#define HMO_IR_COMPUTATION_LAYOUT_H_

// The entry computation's external interface: parameter shapes and result
// shape with layouts. Text: `entry_computation_layout={(f32[2]{0}, s32[])->f32[2]{0}}`.

#include <string>
#include <vector>

#include "hmo/ir/shape.h"

namespace hmo {

class ComputationLayout {
 public:
  ComputationLayout() = default;
  ComputationLayout(std::vector<Shape> parameter_shapes, Shape result_shape)
      : parameter_shapes_(std::move(parameter_shapes)), result_shape_(std::move(result_shape)) {}

  const std::vector<Shape>& parameter_shapes() const { return parameter_shapes_; }
  std::vector<Shape>* mutable_parameter_shapes() { return &parameter_shapes_; }
  const Shape& parameter_shape(int64_t i) const { return parameter_shapes_[i]; }
  int64_t parameter_count() const { return static_cast<int64_t>(parameter_shapes_.size()); }
  const Shape& result_shape() const { return result_shape_; }
  Shape* mutable_result_shape() { return &result_shape_; }

  // "(f32[2]{0}, s32[])->f32[2]{0}" (without the outer braces), with
  // `/*index=N*/` markers every 5 parameters as XLA prints long lists.
  std::string ToString() const;

  bool operator==(const ComputationLayout&) const = default;

 private:
  std::vector<Shape> parameter_shapes_;
  Shape result_shape_;
};

}  // namespace hmo

#endif  // HMO_IR_COMPUTATION_LAYOUT_H_
