// The collectives across the replicas of one evaluation: each replica's
// operand goes through the CollectiveExchange, and the replica computes its
// own result from the parts of the replicas it needs, in rank order.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collective_exchange.h"
#include "element_copy.h"
#include "element_types.h"
#include "elementwise_apply.h"
#include "hmo/ir/collective_attributes.h"
#include "hmo/ir/shape.h"
#include "index_space.h"
#include "opcode_handlers.h"
#include "scalar_combiner.h"

namespace hmo::eval_internal {
namespace {

std::string Describe(const HloInstruction& instr) {
  return absl::StrCat(std::string(HloOpcodeString(instr.opcode())), " ", instr.name());
}

absl::Status Unsupported(const HloInstruction& instr, std::string_view why) {
  return absl::UnimplementedError(absl::StrCat("evaluator: ", Describe(instr), ": ", std::string(why)));
}

absl::Status Invalid(const HloInstruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("evaluator: ", Describe(instr), ": ", std::string(why)));
}

// The group of `replica` in the instruction's replica_groups (rank order).
absl::StatusOr<std::vector<int64_t>> GroupOf(const HloInstruction& instr, int64_t replica,
                                             int64_t num_replicas) {
  std::vector<std::vector<int64_t>> groups;
  const std::optional<std::string_view> text = instr.GetRawAttribute("replica_groups");
  if (text.has_value()) {
    absl::StatusOr<std::vector<std::vector<int64_t>>> parsed = ParseReplicaGroups(*text);
    if (!parsed.ok()) return Invalid(instr, std::string(parsed.status().message()));
    groups = std::move(*parsed);
  }
  if (groups.empty()) {
    std::vector<int64_t> all;
    for (int64_t r = 0; r < num_replicas; ++r) all.push_back(r);
    return all;
  }
  const std::vector<int64_t>* mine = nullptr;
  for (const std::vector<int64_t>& group : groups) {
    for (int64_t id : group) {
      if (id < 0 || id >= num_replicas) {
        return Invalid(instr, absl::StrCat("replica_groups=", std::string(*text), " names replica ", id,
                                           "; there are ", num_replicas));
      }
      if (id == replica) mine = &group;
    }
  }
  if (mine == nullptr) {
    return Invalid(instr, absl::StrCat("replica ", replica, " is in no group of replica_groups=",
                                       std::string(*text)));
  }
  return *mine;
}

int64_t RankIn(const std::vector<int64_t>& group, int64_t replica) {
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == replica) return static_cast<int64_t>(i);
  }
  return -1;
}

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
    absl::StatusOr<std::vector<Literal>> value =
        ApplyScalarComputation(to_apply, {ScalarAt(*acc, i), ScalarAt(next, i)}, run);
    if (!value.ok()) return value.status();
    SetElementFromScalar(acc, i, value->at(0));
  }
  return absl::OkStatus();
}

// to_apply folded over the parts in rank order: ((p0 op p1) op p2) ...
absl::StatusOr<Literal> ReduceParts(const HloInstruction& instr,
                                    const std::vector<std::shared_ptr<const Literal>>& parts,
                                    const ComputationRunner& run) {
  if (instr.to_apply() == nullptr) return Invalid(instr, "no to_apply computation");
  Literal acc = *parts[0];
  for (size_t k = 1; k < parts.size(); ++k) {
    absl::Status combined = CombineInto(*instr.to_apply(), *parts[k], run, &acc);
    if (!combined.ok()) return combined;
  }
  return acc;
}

// A literal of `shape` holding the elements of `value` (same count, both
// row-major), so results carry the instruction's own shape and layout.
Literal Reshaped(const Shape& shape, const Literal& value) {
  Literal out(shape);
  *out.mutable_raw_data() = value.raw_data();
  return out;
}

// The one gathered / scattered dimension, checked: the larger shape is
// `parts` times the smaller along it and equal elsewhere.
absl::StatusOr<int64_t> SplitDimension(const HloInstruction& instr, const Shape& smaller, const Shape& larger,
                                       int64_t parts) {
  if (instr.dimensions().size() != 1) return Invalid(instr, "expected one dimension in dimensions={...}");
  const int64_t d = instr.dimensions(0);
  bool fits = d >= 0 && d < smaller.rank() && smaller.rank() == larger.rank();
  for (int64_t i = 0; fits && i < smaller.rank(); ++i) {
    fits = larger.dimensions(i) == smaller.dimensions(i) * (i == d ? parts : 1);
  }
  if (!fits) {
    return Invalid(instr, absl::StrCat(larger.ToString(false), " is not ", parts, " x ", smaller.ToString(false),
                                       " along dimension ", d));
  }
  return d;
}

absl::StatusOr<Literal> AllGather(const HloInstruction& instr,
                                  const std::vector<std::shared_ptr<const Literal>>& parts) {
  const Shape& part_shape = parts[0]->shape();
  absl::StatusOr<int64_t> d = SplitDimension(instr, part_shape, instr.shape(), static_cast<int64_t>(parts.size()));
  if (!d.ok()) return d.status();
  Literal out(instr.shape());
  const std::vector<int64_t> out_strides = RowMajorStrides(out.shape().dimensions());
  const int64_t width = ByteWidth(out.element_type());
  for (size_t k = 0; k < parts.size(); ++k) {
    const int64_t base = static_cast<int64_t>(k) * part_shape.dimensions(*d) * out_strides[*d];
    int64_t i = 0;
    ForEachIndex(part_shape.dimensions(), [&](absl::Span<const int64_t> index) {
      CopyElement(RawBytes(*parts[k]), i++, MutableRawBytes(&out), base + DotIndex(index, out_strides), width);
    });
  }
  return out;
}

absl::StatusOr<Literal> ReduceScatter(const HloInstruction& instr,
                                      const std::vector<std::shared_ptr<const Literal>>& parts, int64_t rank,
                                      const ComputationRunner& run) {
  absl::StatusOr<int64_t> d =
      SplitDimension(instr, instr.shape(), parts[0]->shape(), static_cast<int64_t>(parts.size()));
  if (!d.ok()) return d.status();
  absl::StatusOr<Literal> reduced = ReduceParts(instr, parts, run);
  if (!reduced.ok()) return reduced.status();
  Literal out(instr.shape());
  const std::vector<int64_t> in_strides = RowMajorStrides(reduced->shape().dimensions());
  const int64_t width = ByteWidth(out.element_type());
  const int64_t base = rank * out.shape().dimensions(*d) * in_strides[*d];
  int64_t i = 0;
  ForEachIndex(out.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    CopyElement(RawBytes(*reduced), base + DotIndex(index, in_strides), MutableRawBytes(&out), i++, width);
  });
  return out;
}

absl::StatusOr<Literal> CollectivePermute(const HloInstruction& instr, const Literal& operand,
                                          ReplicaContext& context, int64_t occurrence) {
  const int64_t num_replicas = context.exchange->num_replicas();
  std::vector<std::pair<int, int>> pairs;
  const std::optional<std::string_view> text = instr.GetRawAttribute("source_target_pairs");
  if (text.has_value()) {
    absl::StatusOr<std::vector<std::pair<int, int>>> parsed = ParseSourceTargetPairs(*text);
    if (!parsed.ok()) return Invalid(instr, std::string(parsed.status().message()));
    pairs = std::move(*parsed);
  }
  std::vector<int64_t> source;  // the replica sending to this one, if any
  for (const auto& [from, to] : pairs) {
    if (from < 0 || from >= num_replicas || to < 0 || to >= num_replicas) {
      return Invalid(instr, absl::StrCat("the pair {", from, ",", to, "} names a replica past the ", num_replicas,
                                         " there are"));
    }
    if (to == context.replica) {
      if (!source.empty()) {
        return Invalid(instr, absl::StrCat("replica ", to, " is the target of more than one pair"));
      }
      source.push_back(from);
    }
  }
  absl::StatusOr<std::vector<std::shared_ptr<const Literal>>> received =
      context.exchange->Exchange(instr, occurrence, context.replica, operand, source);
  if (!received.ok()) return received.status();
  if (received->empty()) return Literal(instr.shape());  // zeros
  return Reshaped(instr.shape(), *received->front());
}

}  // namespace

bool IsReplicaOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Literal> HandleReplicaOpcode(const HloInstruction& instr, Operands operands,
                                            ReplicaContext& context, const ComputationRunner& run) {
  if (instr.opcode() == HloOpcode::kReplicaId) {
    Literal id(instr.shape());
    id.SetFromInt64(0, context.replica);
    return id;
  }
  if (context.exchange == nullptr) return Unsupported(instr, "no replica exchange");
  if (operands.size() != 1 || !operands[0]->shape().IsArray() || !instr.shape().IsArray()) {
    return Unsupported(instr, "only the single-operand array form of collectives is supported");
  }
  const Literal& operand = *operands[0];
  if (instr.shape().element_type() != operand.element_type()) {
    return Invalid(instr, "the result element type differs from the operand's");
  }
  const int64_t occurrence = context.occurrences[&instr]++;
  if (instr.opcode() == HloOpcode::kCollectivePermute) {
    if (ShapeUtil::ElementsIn(instr.shape()) != operand.element_count()) {
      return Invalid(instr, "the result shape differs from the operand's");
    }
    return CollectivePermute(instr, operand, context, occurrence);
  }
  absl::StatusOr<std::vector<int64_t>> group = GroupOf(instr, context.replica, context.exchange->num_replicas());
  if (!group.ok()) return group.status();
  absl::StatusOr<std::vector<std::shared_ptr<const Literal>>> parts =
      context.exchange->Exchange(instr, occurrence, context.replica, operand, *group);
  if (!parts.ok()) return parts.status();
  switch (instr.opcode()) {
    case HloOpcode::kAllReduce: {
      if (ShapeUtil::ElementsIn(instr.shape()) != operand.element_count()) {
        return Invalid(instr, "the result shape differs from the operand's");
      }
      absl::StatusOr<Literal> reduced = ReduceParts(instr, *parts, run);
      if (!reduced.ok()) return reduced.status();
      return Reshaped(instr.shape(), *reduced);
    }
    case HloOpcode::kAllGather:
      return AllGather(instr, *parts);
    case HloOpcode::kReduceScatter:
      return ReduceScatter(instr, *parts, RankIn(*group, context.replica), run);
    default:
      return Unsupported(instr, "not a collective");
  }
}

}  // namespace hmo::eval_internal
