// The collectives across the devices of one evaluation: each device deposits
// its operands in the CollectiveExchange, and computes its own result from
// the deposits of the devices it needs, in rank order. Who takes part, and
// who sends to whom, comes from hmo/ir/collective_attributes.h alone.

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collective_exchange.h"
#include "element_copy.h"
#include "element_types.h"
#include "elementwise_apply.h"
#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/collective_attributes.h"
#include "hmo/ir/shape.h"
#include "index_space.h"
#include "opcode_handlers.h"
#include "scalar_combiner.h"

namespace hmo::eval_internal {
namespace {

using Parts = std::vector<std::shared_ptr<const Literal>>;

std::string Describe(const HloInstruction& instr) {
  return fmt::format("{} {}", std::string(HloOpcodeString(instr.opcode())), instr.name());
}

absl::Status Unsupported(const HloInstruction& instr, const std::string& why) {
  return absl::UnimplementedError(fmt::format("evaluator: {}: {}", Describe(instr), why));
}

absl::Status Invalid(const HloInstruction& instr, const std::string& why) {
  return absl::InvalidArgumentError(fmt::format("evaluator: {}: {}", Describe(instr), why));
}

// An error of the shared attribute helpers, prefixed with the instruction.
absl::Status Named(const HloInstruction& instr, const absl::Status& status) {
  return absl::Status(status.code(), fmt::format("evaluator: {}: {}", Describe(instr),
                                                 std::string(status.message())));
}

std::string ShapeText(const Shape& shape) { return shape.ToString(false); }

// acc[i] = to_apply(acc[i], next[i]) for every element, rounded to the
// element type. Simple binary reducers (add, maximum, ...) are applied
// natively; any other computation is evaluated on scalars.
absl::Status CombineInto(const HloComputation& to_apply, const Literal& next, const ComputationRunner& run,
                         Literal* acc) {
  const PrimitiveType type = acc->element_type();
  const int64_t n = acc->element_count();
  const std::optional<HloOpcode> op = MatchSimpleBinaryReducer(to_apply);
  if (op.has_value() && IsEvaluatorElementType(type) &&
      to_apply.root_instruction()->shape().element_type() == type) {
    bool native = true;
    absl::Status status = SwitchOnElementType(type, "all-reduce", [&](auto tag) -> absl::Status {
      constexpr PrimitiveType kT = decltype(tag)::value;
      using N = NativeOf<kT>;
      N probe;
      if (!ApplyBinaryOp<N>(*op, N{}, N{1}, &probe)) {
        native = false;
        return absl::OkStatus();
      }
      uint8_t* a = MutableRawBytes(acc);
      const uint8_t* b = RawBytes(next);
      for (int64_t i = 0; i < n; ++i) {
        N value{};
        ApplyBinaryOp<N>(*op, LoadElement<kT>(a, i), LoadElement<kT>(b, i), &value);
        StoreElement<kT>(a, i, RoundToElementType<kT>(value));
      }
      return absl::OkStatus();
    });
    if (!status.ok() || native) return status;
  }
  for (int64_t i = 0; i < n; ++i) {
    HMO_ASSIGN_OR_RETURN(
        std::vector<Literal> value,
        ApplyScalarComputation(to_apply, {ScalarAt(*acc, i), ScalarAt(next, i)}, run));
    SetElementFromScalar(acc, i, value.at(0));
  }
  return absl::OkStatus();
}

// to_apply folded over the values in rank order: ((v0 op v1) op v2) ...
absl::StatusOr<Literal> Reduce(const HloInstruction& instr,
                               const std::vector<const Literal*>& values,
                               const ComputationRunner& run) {
  if (instr.to_apply() == nullptr) return Invalid(instr, "no to_apply computation");
  Literal acc = *values[0];
  for (size_t k = 1; k < values.size(); ++k) {
    HMO_RETURN_IF_ERROR(CombineInto(*instr.to_apply(), *values[k], run, &acc));
  }
  return acc;
}

// A literal of `shape` holding the elements of `value` (same count and
// type, both row-major), so results carry the instruction's own shape.
absl::StatusOr<Literal> Reshaped(const HloInstruction& instr, const Shape& shape,
                                 const Literal& value) {
  if (ShapeUtil::ElementsIn(shape) != value.element_count() ||
      shape.element_type() != value.element_type()) {
    return Invalid(instr, fmt::format("the result {} does not hold the value {}", ShapeText(shape),
                                      ShapeText(value.shape())));
  }
  Literal out(shape);
  *out.mutable_raw_data() = value.raw_data();
  return out;
}

// The one dimension of dimensions={d}, checked: `larger` is `parts` times
// `smaller` along it and equal elsewhere (same element type).
absl::StatusOr<int64_t> SplitDimension(const HloInstruction& instr, const Shape& smaller, const Shape& larger,
                                       int64_t parts) {
  if (instr.dimensions().size() != 1) return Invalid(instr, "expected one dimension in dimensions={...}");
  const int64_t d = instr.dimensions(0);
  bool fits = d >= 0 && d < smaller.rank() && smaller.rank() == larger.rank() &&
              smaller.element_type() == larger.element_type();
  for (int64_t i = 0; fits && i < smaller.rank(); ++i) {
    fits = larger.dimensions(i) == smaller.dimensions(i) * (i == d ? parts : 1);
  }
  if (!fits) {
    return Invalid(instr, fmt::format("{} is not {} x {} along dimension {}", ShapeText(larger),
                                      parts, ShapeText(smaller), d));
  }
  return d;
}

// Copies the slab [src_start, src_start + extent) along dimension d of src
// to [dst_start, dst_start + extent) of *dst; the other dimensions of both
// are equal.
void CopySlab(const Literal& src, int64_t src_start, Literal* dst, int64_t dst_start, int64_t d,
              int64_t extent) {
  std::vector<int64_t> slab(dst->shape().dimensions().begin(), dst->shape().dimensions().end());
  slab[static_cast<size_t>(d)] = extent;
  const std::vector<int64_t> src_strides = RowMajorStrides(src.shape().dimensions());
  const std::vector<int64_t> dst_strides = RowMajorStrides(dst->shape().dimensions());
  const int64_t src_base = src_start * src_strides[static_cast<size_t>(d)];
  const int64_t dst_base = dst_start * dst_strides[static_cast<size_t>(d)];
  const int64_t width = ByteWidth(dst->element_type());
  ForEachIndex(slab, [&](absl::Span<const int64_t> index) {
    CopyElement(RawBytes(src), src_base + DotIndex(index, src_strides), MutableRawBytes(dst),
                dst_base + DotIndex(index, dst_strides), width);
  });
}

// all-gather: the values concatenated along dimensions={d} in rank order.
absl::StatusOr<Literal> Gather(const HloInstruction& instr,
                               const std::vector<const Literal*>& values, const Shape& result) {
  const Shape& part = values[0]->shape();
  HMO_ASSIGN_OR_RETURN(int64_t d,
                       SplitDimension(instr, part, result, static_cast<int64_t>(values.size())));
  Literal out(result);
  const int64_t extent = part.dimensions(d);
  for (size_t k = 0; k < values.size(); ++k)
    CopySlab(*values[k], 0, &out, static_cast<int64_t>(k) * extent, d, extent);
  return out;
}

// reduce-scatter: block `rank` along dimensions={d} of the reduced values.
absl::StatusOr<Literal> Scatter(const HloInstruction& instr,
                                const std::vector<const Literal*>& values, const Shape& result,
                                int64_t rank, const ComputationRunner& run) {
  HMO_ASSIGN_OR_RETURN(int64_t d, SplitDimension(instr, result, values[0]->shape(),
                                                 static_cast<int64_t>(values.size())));
  HMO_ASSIGN_OR_RETURN(Literal reduced, Reduce(instr, values, run));
  Literal out(result);
  const int64_t extent = result.dimensions(d);
  CopySlab(reduced, rank * extent, &out, 0, d, extent);
  return out;
}

// The array all-to-all along dimensions={d}: every operand is cut into N
// chunks along d, chunk k going to rank k; the result's chunk k is the
// chunk rank k sent to `rank`.
absl::StatusOr<Literal> AllToAllArray(const HloInstruction& instr,
                                      const std::vector<const Literal*>& values,
                                      const Shape& result, int64_t rank) {
  if (instr.dimensions().size() != 1)
    return Invalid(instr, "expected one dimension in dimensions={...}");
  const int64_t d = instr.dimensions(0);
  const Shape& operand = values[0]->shape();
  const int64_t n = static_cast<int64_t>(values.size());
  if (!ShapeUtil::EqualIgnoringLayout(operand, result) || d < 0 || d >= operand.rank() ||
      operand.dimensions(d) % n != 0) {
    return Invalid(instr, fmt::format("cannot split {} into {} chunks along dimension {} giving {}",
                                      ShapeText(operand), n, d, ShapeText(result)));
  }
  Literal out(result);
  const int64_t extent = operand.dimensions(d) / n;
  for (int64_t k = 0; k < n; ++k) CopySlab(*values[k], rank * extent, &out, k * extent, d, extent);
  return out;
}

// The shapes of the collective's own result, one per operand: the result
// itself for one array operand, else the elements of a tuple result.
absl::StatusOr<std::vector<const Shape*>> ResultShapes(const HloInstruction& instr,
                                                       const Shape& result, Operands operands) {
  for (const Literal* operand : operands) {
    if (!operand->shape().IsArray()) return Unsupported(instr, "only array operands are supported");
  }
  std::vector<const Shape*> shapes;
  if (result.IsTuple()) {
    for (const Shape& element : result.tuple_shapes()) shapes.push_back(&element);
  } else {
    shapes.push_back(&result);
  }
  bool fits = shapes.size() == operands.size();
  for (const Shape* shape : shapes) fits = fits && shape->IsArray();
  if (!fits) {
    return Unsupported(
        instr, fmt::format("{} operand(s) with the result {}", operands.size(), ShapeText(result)));
  }
  return shapes;
}

// The operands as one literal: a device's deposit in the exchange.
Literal Bundle(Operands operands) {
  std::vector<Literal> elements;
  elements.reserve(operands.size());
  for (const Literal* operand : operands) elements.push_back(*operand);
  return Literal::MakeTuple(std::move(elements));
}

// Operand `i` of each deposit, in the order of `parts`.
std::vector<const Literal*> OperandOfEach(const Parts& parts, size_t i) {
  std::vector<const Literal*> values;
  values.reserve(parts.size());
  for (const std::shared_ptr<const Literal>& part : parts)
    values.push_back(&part->tuple_elements().at(i));
  return values;
}

// The results of the collectives over groups (all but collective-permute),
// one per entry of `shapes`.
absl::StatusOr<std::vector<Literal>> GroupCollective(const HloInstruction& instr, Operands operands,
                                                     const std::vector<const Shape*>& shapes,
                                                     DeviceContext& context, int64_t occurrence,
                                                     const ComputationRunner& run) {
  CollectiveExchange& exchange = *context.exchange;
  absl::StatusOr<std::vector<int64_t>> participants =
      CollectiveParticipants(instr, exchange.grid(), context.device);
  if (!participants.ok()) return Named(instr, participants.status());
  const int64_t rank =
      std::find(participants->begin(), participants->end(), context.device) - participants->begin();
  const HloOpcode op = instr.opcode();
  // collective-broadcast needs only the root's operands.
  std::vector<int64_t> needed = *participants;
  if (op == HloOpcode::kCollectiveBroadcast) needed = {participants->front()};
  HMO_ASSIGN_OR_RETURN(
      Parts parts, exchange.Exchange(instr, occurrence, context.device, Bundle(operands), needed));

  std::vector<Literal> results;
  if (op == HloOpcode::kAllToAll && !instr.has_dimensions()) {
    // The tuple form: result k is operand <rank> of rank k.
    if (shapes.size() != participants->size()) {
      return Invalid(
          instr, fmt::format("the tuple form needs one operand per participant: {} operands, {} "
                             "participants",
                             shapes.size(), participants->size()));
    }
    for (size_t k = 0; k < shapes.size(); ++k) {
      HMO_ASSIGN_OR_RETURN(
          Literal value,
          Reshaped(instr, *shapes[k], parts[k]->tuple_elements().at(static_cast<size_t>(rank))));
      results.push_back(std::move(value));
    }
    return results;
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<const Literal*> values = OperandOfEach(parts, i);
    const Shape& shape = *shapes[i];
    switch (op) {
      case HloOpcode::kAllReduce:
      case HloOpcode::kAllReduceStart: {
        HMO_ASSIGN_OR_RETURN(Literal reduced, Reduce(instr, values, run));
        HMO_ASSIGN_OR_RETURN(Literal value, Reshaped(instr, shape, reduced));
        results.push_back(std::move(value));
        break;
      }
      case HloOpcode::kAllGather:
      case HloOpcode::kAllGatherStart: {
        HMO_ASSIGN_OR_RETURN(Literal value, Gather(instr, values, shape));
        results.push_back(std::move(value));
        break;
      }
      case HloOpcode::kReduceScatter: {
        HMO_ASSIGN_OR_RETURN(Literal value, Scatter(instr, values, shape, rank, run));
        results.push_back(std::move(value));
        break;
      }
      case HloOpcode::kAllToAll: {
        if (shapes.size() != 1)
          return Unsupported(instr, "an all-to-all with dimensions takes one operand");
        HMO_ASSIGN_OR_RETURN(Literal value, AllToAllArray(instr, values, shape, rank));
        results.push_back(std::move(value));
        break;
      }
      case HloOpcode::kCollectiveBroadcast: {
        HMO_ASSIGN_OR_RETURN(Literal value, Reshaped(instr, shape, *values[0]));
        results.push_back(std::move(value));
        break;
      }
      default:
        return Unsupported(instr, "not a collective over groups");
    }
  }
  return results;
}

// collective-permute: operand i of the source device, zeros without one.
absl::StatusOr<std::vector<Literal>> Permute(const HloInstruction& instr, Operands operands,
                                             const std::vector<const Shape*>& shapes,
                                             DeviceContext& context, int64_t occurrence) {
  CollectiveExchange& exchange = *context.exchange;
  absl::StatusOr<PermutePeers> peers =
      CollectivePermutePeers(instr, exchange.grid(), context.device);
  if (!peers.ok()) return Named(instr, peers.status());
  std::vector<int64_t> needed;
  if (peers->source >= 0) needed.push_back(peers->source);
  // Every device deposits, even one without a target, so the round closes.
  HMO_ASSIGN_OR_RETURN(
      Parts parts, exchange.Exchange(instr, occurrence, context.device, Bundle(operands), needed));
  std::vector<Literal> results;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (parts.empty()) {
      results.emplace_back(*shapes[i]);  // zeros
      continue;
    }
    HMO_ASSIGN_OR_RETURN(Literal value,
                         Reshaped(instr, *shapes[i], parts[0]->tuple_elements().at(i)));
    results.push_back(std::move(value));
  }
  return results;
}

Literal ScalarId(const Shape& shape, int64_t id) {
  Literal literal(shape);
  literal.SetFromInt64(0, id);
  return literal;
}

// Element `index` of the tuple `value` (a -start's value), checked.
absl::StatusOr<Literal> TupleElement(const HloInstruction& instr, const Literal& value,
                                     size_t index) {
  if (!value.shape().IsTuple() || value.tuple_elements().size() <= index) {
    return Invalid(
        instr, fmt::format("the operand {} has no element {}", ShapeText(value.shape()), index));
  }
  return value.tuple_elements()[index];
}

}  // namespace

bool IsDeviceOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Literal> HandleDeviceOpcode(const HloInstruction& instr, Operands operands,
                                           DeviceContext& context, const ComputationRunner& run) {
  if (context.exchange == nullptr) return Unsupported(instr, "no device exchange");
  const DeviceGrid& grid = context.exchange->grid();
  const HloOpcode op = instr.opcode();
  switch (op) {
    case HloOpcode::kReplicaId:
      return ScalarId(instr.shape(), grid.replica(context.device));
    case HloOpcode::kPartitionId:
      return ScalarId(instr.shape(), grid.partition(context.device));
    // The -start did the work; the done hands over its result.
    case HloOpcode::kAllReduceDone:
      return *operands[0];
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return TupleElement(instr, *operands[0], 1);
    default:
      break;
  }
  // all-gather-start is (operands, results) and collective-permute-start
  // (operands, results, u32[] contexts...), as XLA shapes them; the
  // collective's own result is element 1.
  const bool wrapped = op == HloOpcode::kAllGatherStart || op == HloOpcode::kCollectivePermuteStart;
  if (wrapped && (!instr.shape().IsTuple() || instr.shape().tuple_shapes_size() < 2)) {
    return Invalid(instr, fmt::format("expected an (operands, results, ...) tuple, got {}",
                                      ShapeText(instr.shape())));
  }
  const Shape& result = wrapped ? instr.shape().tuple_shapes(1) : instr.shape();
  const bool permute =
      op == HloOpcode::kCollectivePermute || op == HloOpcode::kCollectivePermuteStart;
  if (permute && operands.size() == 4 && !result.IsTuple()) {
    return Unsupported(instr, "the in-place form (with slice offsets) is not supported");
  }
  HMO_ASSIGN_OR_RETURN(std::vector<const Shape*> shapes, ResultShapes(instr, result, operands));
  const int64_t occurrence = context.occurrences[&instr]++;
  std::vector<Literal> values;
  if (permute) {
    HMO_ASSIGN_OR_RETURN(values, Permute(instr, operands, shapes, context, occurrence));
  } else {
    HMO_ASSIGN_OR_RETURN(values,
                         GroupCollective(instr, operands, shapes, context, occurrence, run));
  }
  Literal value = result.IsTuple() ? Literal::MakeTuple(std::move(values)) : std::move(values[0]);
  if (!wrapped) return value;
  std::vector<Literal> elements;
  elements.push_back(operands.size() == 1 && !instr.shape().tuple_shapes(0).IsTuple()
                         ? *operands[0]
                         : Bundle(operands));
  elements.push_back(std::move(value));
  // The u32[] contexts of collective-permute-start carry nothing here.
  for (int i = 2; i < instr.shape().tuple_shapes_size(); ++i)
    elements.emplace_back(instr.shape().tuple_shapes(i));
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace hmo::eval_internal
