#ifndef HMO_IR_HLO_INSTRUCTION_H_
#define HMO_IR_HLO_INSTRUCTION_H_

// One HLO instruction. A single class carries every opcode: the attributes
// hmo interprets are typed fields with accessors (valid for the opcodes noted
// on each); every other attribute (metadata, sharding, backend_config,
// replica_groups, operand_precision, ...) is kept verbatim as (name, raw text)
// in text order, so a parse/print round trip loses nothing.
//
// Ownership: an instruction is owned by its HloComputation once added
// (HloComputation::AddInstruction). Operand/user edges are kept symmetric by
// every mutator here: creating an instruction with operands registers it as a
// user of each operand. An instruction that was created but never added
// removes itself from its operands' user lists when destroyed.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hmo/ir/dimension_numbers.h"
#include "hmo/ir/frontend_attributes.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/shape.h"
#include "hmo/ir/window.h"

namespace hmo {

class HloComputation;
class HloModule;

// `kind=` of fusion instructions.
enum class FusionKind { kLoop, kInput, kOutput, kCustom };
std::string_view FusionKindString(FusionKind kind);  // "kLoop"
std::optional<FusionKind> StringToFusionKind(std::string_view s);

// An attribute kept as text: `name=value` where `value` is the exact source
// text of the value (e.g. name "metadata", value "{op_name=\"x\"}").
struct HloRawAttribute {
  std::string name;
  std::string value;
  bool operator==(const HloRawAttribute&) const = default;
};

// One `output_to_operand_aliasing` entry: output at `output_index` may share
// the buffer of operand `operand_number` at `operand_index`.
// Text: `{ {0}: (1, {}) }`.
struct OutputOperandAlias {
  ShapeIndex output_index;
  int64_t operand_number = 0;
  ShapeIndex operand_index;
  bool operator==(const OutputOperandAlias&) const = default;
};

class HloInstruction {
 public:
  // ---------------------------------------------------------------- creation
  // Generic factory: any opcode; typed attributes are left at defaults and
  // set with the setters below. Registers the new instruction as a user of
  // each operand. The name is empty until set or until added to a computation
  // (which then names it after the opcode, uniquified within the module).
  static std::unique_ptr<HloInstruction> Create(HloOpcode opcode, const Shape& shape,
                                                absl::Span<HloInstruction* const> operands);
  static std::unique_ptr<HloInstruction> CreateParameter(int64_t parameter_number,
                                                         const Shape& shape,
                                                         std::string_view name);
  // The instruction's shape is the literal's shape.
  static std::unique_ptr<HloInstruction> CreateConstant(Literal literal);
  // Shape is operand's tuple element `index`. Precondition: operand is a
  // tuple with that element.
  static std::unique_ptr<HloInstruction> CreateGetTupleElement(HloInstruction* operand,
                                                               int64_t index);
  static std::unique_ptr<HloInstruction> CreateGetTupleElement(const Shape& shape,
                                                               HloInstruction* operand,
                                                               int64_t index);
  // Shape is the tuple of the operands' shapes.
  static std::unique_ptr<HloInstruction> CreateTuple(absl::Span<HloInstruction* const> elements);
  static std::unique_ptr<HloInstruction> CreateUnary(const Shape& shape, HloOpcode opcode,
                                                     HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateBinary(const Shape& shape, HloOpcode opcode,
                                                      HloInstruction* lhs, HloInstruction* rhs);
  static std::unique_ptr<HloInstruction> CreateCopy(const Shape& shape, HloInstruction* operand) {
    return CreateUnary(shape, HloOpcode::kCopy, operand);
  }
  static std::unique_ptr<HloInstruction> CreateBitcast(const Shape& shape, HloInstruction* operand) {
    return CreateUnary(shape, HloOpcode::kBitcast, operand);
  }
  static std::unique_ptr<HloInstruction> CreateCustomCall(const Shape& shape,
                                                          absl::Span<HloInstruction* const> operands,
                                                          std::string_view custom_call_target);
  static std::unique_ptr<HloInstruction> CreateFusion(const Shape& shape, FusionKind kind,
                                                      absl::Span<HloInstruction* const> operands,
                                                      HloComputation* fused_computation);
  static std::unique_ptr<HloInstruction> CreateCall(const Shape& shape,
                                                    absl::Span<HloInstruction* const> operands,
                                                    HloComputation* computation);
  static std::unique_ptr<HloInstruction> CreateDynamicSlice(const Shape& shape,
                                                            HloInstruction* operand,
                                                            absl::Span<HloInstruction* const> start_indices,
                                                            std::vector<int64_t> slice_sizes);
  static std::unique_ptr<HloInstruction> CreateDynamicUpdateSlice(
      const Shape& shape, HloInstruction* operand, HloInstruction* update,
      absl::Span<HloInstruction* const> start_indices);

  ~HloInstruction();
  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;

  // ---------------------------------------------------------------- identity
  const std::string& name() const { return name_; }

  // Where the instruction was written (1-based line and column of its name
  // in the text it was parsed from); {0, 0} when it was not parsed (made by
  // a pass). Diagnostics use it; it is no part of the instruction's meaning.
  struct SourceLocation {
    int64_t line = 0;
    int64_t column = 0;
    bool known() const { return line > 0; }
  };
  const SourceLocation& source_location() const { return source_location_; }
  void set_source_location(SourceLocation location) { source_location_ = location; }
  // Sets the name, replacing characters not allowed in HLO names
  // ([A-Za-z0-9_.-]) with '_'. Does not uniquify.
  void SetAndSanitizeName(std::string_view name);
  // Module-wide unique id, assigned when the instruction joins a module
  // (directly or with its computation); -1 before.
  int64_t unique_id() const { return unique_id_; }
  void SetUniqueId(int64_t id) { unique_id_ = id; }
  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  // --------------------------------------------------------------- operands
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  const HloInstruction* operand(int64_t i) const { return operands_[i]; }
  HloInstruction* mutable_operand(int64_t i) { return operands_[i]; }
  // Operands without duplicates, in first-occurrence order.
  std::vector<HloInstruction*> unique_operands() const;
  // First index of `target` in operands(), or -1.
  int64_t operand_index(const HloInstruction* target) const;
  // Every index of `target` in operands().
  std::vector<int64_t> OperandIndices(const HloInstruction* target) const;
  // Appends an operand and registers this as its user.
  void AppendOperand(HloInstruction* operand);

  // ------------------------------------------------------------------ users
  // Each user once, in the order the use edges were created.
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  bool IsUserOf(const HloInstruction* operand) const;

  // ------------------------------------------------------ control edges
  // `control-predecessors={a, b}` in text: this runs after a and b.
  const std::vector<HloInstruction*>& control_predecessors() const { return control_predecessors_; }
  const std::vector<HloInstruction*>& control_successors() const { return control_successors_; }
  // Adds the edge this -> successor (no-op if present). Error if successor is
  // this instruction or belongs to another computation.
  absl::Status AddControlDependencyTo(HloInstruction* successor);
  // Error if the edge does not exist.
  absl::Status RemoveControlDependencyTo(HloInstruction* successor);
  // Removes every control edge into and out of this instruction.
  absl::Status DropAllControlDeps();
  // Adds this -> s for every control successor s of `inst` and p -> this for
  // every control predecessor p of `inst`.
  absl::Status CopyAllControlDepsFrom(const HloInstruction* inst);

  // ------------------------------------------------------------- placement
  HloComputation* parent() { return parent_; }
  const HloComputation* parent() const { return parent_; }
  // The module of the parent computation, or null.
  HloModule* GetModule() const;
  // True when this is its computation's root.
  bool IsRoot() const;
  // No users and not the root.
  bool IsDead() const { return users_.empty() && !IsRoot(); }

  // --------------------------------------------------- called computations
  // In XLA's order: while {body, condition}; conditional: branches;
  // select-and-scatter {select, scatter}; fusion/call/async/reduce/... {one}.
  const std::vector<HloComputation*>& called_computations() const { return called_computations_; }
  void set_called_computations(std::vector<HloComputation*> computations);
  // The single called computation of call, map, reduce, reduce-window,
  // all-reduce(-start), reduce-scatter, scatter, sort, topk and custom-call.
  HloComputation* to_apply() const;
  void set_to_apply(HloComputation* computation);
  // kFusion.
  HloComputation* fused_instructions_computation() const;
  HloInstruction* fused_expression_root() const;
  HloInstruction* fused_parameter(int64_t i) const;
  // kWhile.
  HloComputation* while_condition() const;
  HloComputation* while_body() const;
  void set_while_condition(HloComputation* c);
  void set_while_body(HloComputation* c);
  HloInstruction* while_init() const { return operands_[0]; }
  // kConditional: branch b's computation; with the true/false form branch 0
  // is true_computation and branch 1 false_computation.
  const std::vector<HloComputation*>& branch_computations() const { return called_computations_; }
  int64_t branch_count() const { return static_cast<int64_t>(called_computations_.size()); }
  HloComputation* branch_computation(int64_t b) const { return called_computations_[b]; }
  // Whether the conditional was written with true_computation/false_computation
  // (printed back in the same form).
  bool conditional_uses_true_false_form() const { return true_false_form_; }
  void set_conditional_uses_true_false_form(bool v) { true_false_form_ = v; }
  // kAsyncStart/Update/Done: the wrapped computation and its root.
  HloComputation* async_wrapped_computation() const;
  HloInstruction* async_wrapped_instruction() const;
  // kSelectAndScatter.
  HloComputation* select() const { return called_computations_.at(0); }
  HloComputation* scatter() const { return called_computations_.at(1); }

  // ----------------------------------------------------- typed attributes
  // kParameter: `parameter(N)`.
  int64_t parameter_number() const { return parameter_number_; }
  void set_parameter_number(int64_t n) { parameter_number_ = n; }
  // kGetTupleElement: `index=N`.
  int64_t tuple_index() const { return tuple_index_; }
  void set_tuple_index(int64_t i) { tuple_index_ = i; }
  // `dimensions={...}`: broadcast, transpose, reduce, reverse, concatenate
  // (one entry), all-gather, reduce-scatter, all-to-all, sort,
  // get/set-dimension-size, map.
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  void set_dimensions(std::vector<int64_t> d) { dimensions_ = std::move(d); }
  // Whether `dimensions=` is present (it is printed even when empty, as in
  // `broadcast(x), dimensions={}`).
  bool has_dimensions() const { return has_dimensions_; }
  void set_has_dimensions(bool v) { has_dimensions_ = v; }
  // kConcatenate: dimensions()[0].
  int64_t concatenate_dimension() const { return dimensions_.at(0); }
  // kSlice: `slice={[start:limit:stride], ...}`.
  const std::vector<int64_t>& slice_starts() const { return slice_starts_; }
  const std::vector<int64_t>& slice_limits() const { return slice_limits_; }
  const std::vector<int64_t>& slice_strides() const { return slice_strides_; }
  int64_t slice_starts(int64_t d) const { return slice_starts_[d]; }
  int64_t slice_limits(int64_t d) const { return slice_limits_[d]; }
  int64_t slice_strides(int64_t d) const { return slice_strides_[d]; }
  void set_slice(std::vector<int64_t> starts, std::vector<int64_t> limits,
                 std::vector<int64_t> strides);
  // kDynamicSlice: `dynamic_slice_sizes={...}`.
  const std::vector<int64_t>& dynamic_slice_sizes() const { return dynamic_slice_sizes_; }
  void set_dynamic_slice_sizes(std::vector<int64_t> s) { dynamic_slice_sizes_ = std::move(s); }
  // kPad: `padding=0_1x2_3`.
  const PaddingConfig& padding_config() const { return padding_config_; }
  void set_padding_config(PaddingConfig p) { padding_config_ = std::move(p); }
  // `window={...}`: convolution, reduce-window, select-and-scatter, custom-call.
  bool has_window() const { return window_.has_value(); }
  const Window& window() const { return *window_; }
  void set_window(Window w) { window_ = std::move(w); }
  void clear_window() { window_.reset(); }
  // `dim_labels=`: convolution (and custom-call). dim_labels() is the text.
  bool has_convolution_dimension_numbers() const { return conv_dnums_.has_value(); }
  const ConvolutionDimensionNumbers& convolution_dimension_numbers() const { return *conv_dnums_; }
  const std::string& dim_labels() const { return dim_labels_; }
  // Sets the numbers and regenerates the text.
  void set_convolution_dimension_numbers(const ConvolutionDimensionNumbers& dnums);
  // Sets numbers and text together (used by the parser to keep the text).
  void set_convolution_dimension_numbers(const ConvolutionDimensionNumbers& dnums,
                                         std::string dim_labels_text);
  // `feature_group_count=` / `batch_group_count=`; default 1 (not printed).
  int64_t feature_group_count() const { return feature_group_count_; }
  void set_feature_group_count(int64_t v) { feature_group_count_ = v; }
  int64_t batch_group_count() const { return batch_group_count_; }
  void set_batch_group_count(int64_t v) { batch_group_count_ = v; }
  // kDot / kRaggedDot: `lhs_batch_dims=... rhs_contracting_dims=...`.
  const DotDimensionNumbers& dot_dimension_numbers() const { return dot_dnums_; }
  DotDimensionNumbers* mutable_dot_dimension_numbers() { return &dot_dnums_; }
  void set_dot_dimension_numbers(DotDimensionNumbers d) { dot_dnums_ = std::move(d); }
  // kGather: dims plus `slice_sizes={...}`.
  const GatherDimensionNumbers& gather_dimension_numbers() const { return gather_dnums_; }
  GatherDimensionNumbers* mutable_gather_dimension_numbers() { return &gather_dnums_; }
  const std::vector<int64_t>& gather_slice_sizes() const { return gather_slice_sizes_; }
  void set_gather_slice_sizes(std::vector<int64_t> s) { gather_slice_sizes_ = std::move(s); }
  // kScatter.
  const ScatterDimensionNumbers& scatter_dimension_numbers() const { return scatter_dnums_; }
  ScatterDimensionNumbers* mutable_scatter_dimension_numbers() { return &scatter_dnums_; }
  // kGather/kScatter: `indices_are_sorted=true`; kScatter: `unique_indices=true`.
  bool indices_are_sorted() const { return indices_are_sorted_; }
  void set_indices_are_sorted(bool v) { indices_are_sorted_ = v; }
  bool unique_indices() const { return unique_indices_; }
  void set_unique_indices(bool v) { unique_indices_ = v; }
  // kFusion: `kind=kLoop`.
  FusionKind fusion_kind() const { return fusion_kind_; }
  void set_fusion_kind(FusionKind k) { fusion_kind_ = k; }
  // kCustomCall: `custom_call_target="..."`.
  const std::string& custom_call_target() const { return custom_call_target_; }
  void set_custom_call_target(std::string_view t) { custom_call_target_ = std::string(t); }
  // kFusion / kCustomCall: `output_to_operand_aliasing={...}`.
  const std::vector<OutputOperandAlias>& output_to_operand_aliasing() const { return output_to_operand_aliasing_; }
  void set_output_to_operand_aliasing(std::vector<OutputOperandAlias> a) { output_to_operand_aliasing_ = std::move(a); }
  // `frontend_attributes={k="v",...}` (any opcode), in text order.
  const FrontendAttributes& frontend_attributes() const { return frontend_attributes_; }
  FrontendAttributes* mutable_frontend_attributes() { return &frontend_attributes_; }
  void set_frontend_attributes(FrontendAttributes f) { frontend_attributes_ = std::move(f); }
  // `channel_id=N`: collectives, send/recv, custom-call.
  std::optional<int64_t> channel_id() const { return channel_id_; }
  void set_channel_id(std::optional<int64_t> id) { channel_id_ = id; }
  // kCompare: `direction=LT` and the optional `type=TOTALORDER` (kept only
  // when written).
  ComparisonDirection comparison_direction() const { return comparison_direction_; }
  void set_comparison_direction(ComparisonDirection d) { comparison_direction_ = d; }
  std::optional<ComparisonType> comparison_type() const { return comparison_type_; }
  void set_comparison_type(std::optional<ComparisonType> t) { comparison_type_ = t; }
  // kIota: `iota_dimension=N`.
  int64_t iota_dimension() const { return iota_dimension_; }
  void set_iota_dimension(int64_t d) { iota_dimension_ = d; }
  // kConstant. Precondition for literal(): has_literal().
  bool has_literal() const { return literal_ != nullptr; }
  const Literal& literal() const { return *literal_; }
  void set_literal(Literal literal);

  // ------------------------------------------------- verbatim attributes
  // Every attribute hmo does not interpret, in text order.
  const std::vector<HloRawAttribute>& raw_attributes() const { return raw_attributes_; }
  // Raw text of attribute `name`, or nullopt.
  std::optional<std::string_view> GetRawAttribute(std::string_view name) const;
  // Replaces the value in place when present, else appends.
  void SetRawAttribute(std::string_view name, std::string value);
  // Returns whether it was present.
  bool RemoveRawAttribute(std::string_view name);
  void clear_raw_attributes() { raw_attributes_.clear(); }
  // Shorthands for common verbatim attributes; empty when absent.
  std::string_view metadata_text() const;        // `{op_name="..." ...}`
  std::string_view sharding_text() const;        // `{replicated}`
  std::string_view backend_config_text() const;  // JSON or quoted string, as written
  bool has_sharding() const { return GetRawAttribute("sharding").has_value(); }
  // The `op_name` field of metadata (unescaped), or empty.
  std::string metadata_op_name() const;
  // True for custom-calls written with `custom_call_has_side_effect=true`.
  bool custom_call_has_side_effect() const;

  // ------------------------------------------------------------ properties
  // Elementwise opcode (bitcast-convert only between equal bit widths), or a
  // loop fusion whose fused instructions are all elementwise.
  bool IsElementwise() const;
  // Whether output element i depends only on element i of operand
  // `operand_index` (for fusions: every use of the fused parameter is
  // elementwise).
  bool IsElementwiseOnOperand(int64_t operand_index) const;
  // send/recv(-done), infeed/outfeed, rng, *-start/-done collectives,
  // custom-calls with custom_call_has_side_effect=true, ... (this instruction
  // only; see HasSideEffect for called computations).
  bool HasSideEffectNoRecurse() const;
  bool HasSideEffect() const;

  // --------------------------------------------------------------- mutation
  // Replaces operand i. Errors: i out of range, shapes not compatible
  // (layout ignored) in the checked variant.
  absl::Status ReplaceOperandWith(int64_t operand_num, HloInstruction* new_operand);
  absl::Status ReplaceOperandWithDifferentShape(int64_t operand_num, HloInstruction* new_operand);
  // Makes `user` use `new_producer` wherever it used this. Error if `user` is
  // not a user of this.
  absl::Status ReplaceUseWith(HloInstruction* user, HloInstruction* new_producer);
  // Every user uses `new_producer` instead; if this was its computation's
  // root, `new_producer` becomes the root. Error on incompatible shapes
  // (layout ignored) in the checked variant.
  absl::Status ReplaceAllUsesWith(HloInstruction* new_producer);
  absl::Status ReplaceAllUsesWithDifferentShape(HloInstruction* new_producer);
  // Copy with every attribute (typed, verbatim, called computations) but the
  // given shape and operands; the name is kept (AddInstruction uniquifies),
  // no control edges, no parent. Precondition: operand count acceptable for
  // the opcode.
  std::unique_ptr<HloInstruction> CloneWithNewOperands(
      const Shape& shape, absl::Span<HloInstruction* const> new_operands) const;
  // Copy with the same shape and operands, named `name.suffix`.
  std::unique_ptr<HloInstruction> Clone(std::string_view suffix = "clone") const;
  // Copies attributes that are not operands/shape/name from `other`
  // (used by clones).
  void CopyAttributesFrom(const HloInstruction& other);

  // The instruction as one line of HLO text (no indentation, no ROOT).
  std::string ToString() const;

  // ------------------------------------------------------------- internals
  // Used by HloComputation; not for general use.
  void set_parent(HloComputation* parent) { parent_ = parent; }
  int64_t index_in_parent() const { return index_in_parent_; }
  void set_index_in_parent(int64_t i) { index_in_parent_ = i; }
  // Removes this from its operands' user lists and clears operands.
  void DetachFromOperands();

 private:
  HloInstruction(HloOpcode opcode, const Shape& shape);
  void AddUser(HloInstruction* user);
  void RemoveUser(HloInstruction* user);
  bool HasUser(const HloInstruction* user) const;
  void RegisterAsCaller();
  void UnregisterAsCaller();

  friend class HloComputation;
  friend class HloModule;

  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  SourceLocation source_location_;
  int64_t unique_id_ = -1;
  HloComputation* parent_ = nullptr;
  int64_t index_in_parent_ = -1;

  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  // Membership index of users_, built once an instruction has many users (a
  // parameter read by every fusion of a dump), so adding users stays O(1).
  std::unique_ptr<absl::flat_hash_set<const HloInstruction*>> user_index_;
  std::vector<HloInstruction*> control_predecessors_;
  std::vector<HloInstruction*> control_successors_;
  std::vector<HloComputation*> called_computations_;
  bool true_false_form_ = false;

  int64_t parameter_number_ = 0;
  int64_t tuple_index_ = 0;
  std::vector<int64_t> dimensions_;
  bool has_dimensions_ = false;
  std::vector<int64_t> slice_starts_, slice_limits_, slice_strides_;
  std::vector<int64_t> dynamic_slice_sizes_;
  PaddingConfig padding_config_;
  std::optional<Window> window_;
  std::optional<ConvolutionDimensionNumbers> conv_dnums_;
  std::string dim_labels_;
  int64_t feature_group_count_ = 1;
  int64_t batch_group_count_ = 1;
  DotDimensionNumbers dot_dnums_;
  GatherDimensionNumbers gather_dnums_;
  std::vector<int64_t> gather_slice_sizes_;
  ScatterDimensionNumbers scatter_dnums_;
  bool indices_are_sorted_ = false;
  bool unique_indices_ = false;
  FusionKind fusion_kind_ = FusionKind::kLoop;
  std::string custom_call_target_;
  std::vector<OutputOperandAlias> output_to_operand_aliasing_;
  FrontendAttributes frontend_attributes_;
  std::optional<int64_t> channel_id_;
  ComparisonDirection comparison_direction_ = ComparisonDirection::kEq;
  std::optional<ComparisonType> comparison_type_;
  int64_t iota_dimension_ = 0;
  std::unique_ptr<Literal> literal_;
  std::vector<HloRawAttribute> raw_attributes_;
};

}  // namespace hmo

#endif  // HMO_IR_HLO_INSTRUCTION_H_
