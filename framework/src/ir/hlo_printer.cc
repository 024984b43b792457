#include "hmo/ir/hlo_printer.h"
#include "str_cat.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo_attribute_order.h"

namespace hmo {

using ir_internal::StrAppend;
using ir_internal::StrCat;
namespace {

using text_internal::AttributeRank;

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Quote(std::string_view s) { return StrCat("\"", absl::CEscape(AbslView(s)), "\""); }

std::string IntList(const std::vector<int64_t>& v) {
  return StrCat("{", absl::StrJoin(v, ","), "}");
}

// The short form drops the '%', except where the parser needs it: a name
// that does not start like an identifier (XLA accepts `%1.a`, and so does
// hmo's parser) only reads back as a name with its '%'.
std::string Name(std::string_view name, const HloPrintOptions& o) {
  const char first = name.empty() ? '\0' : name.front();
  const bool starts_like_identifier =
      (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_';
  return o.print_percent || !starts_like_identifier ? StrCat("%", AbslView(name))
                                                    : std::string(name);
}

std::string OutputOperandAliasingToString(const std::vector<OutputOperandAlias>& aliases) {
  std::string out = "{";
  for (size_t i = 0; i < aliases.size(); ++i) {
    if (i > 0) out += ", ";
    StrAppend(&out, ShapeIndexToString(aliases[i].output_index), ": (", aliases[i].operand_number,
              ", ", ShapeIndexToString(aliases[i].operand_index), ")");
  }
  return out + "}";
}

// `{[start:limit:stride], ...}`. hmo's own form leaves out strides of 1;
// XLA's (`xla_strides`) writes every stride once any of them is not 1.
std::string SliceToString(const HloInstruction& i, bool xla_strides) {
  const std::vector<int64_t>& strides = i.slice_strides();
  auto stride = [&](size_t d) { return d < strides.size() ? strides[d] : int64_t{1}; };
  bool any_stride = false;
  for (size_t d = 0; d < i.slice_starts().size(); ++d) any_stride |= stride(d) != 1;
  std::vector<std::string> parts;
  for (size_t d = 0; d < i.slice_starts().size(); ++d) {
    std::string p = StrCat("[", i.slice_starts()[d], ":", i.slice_limits()[d]);
    if (stride(d) != 1 || (xla_strides && any_stride)) StrAppend(&p, ":", stride(d));
    parts.push_back(p + "]");
  }
  return StrCat("{", absl::StrJoin(parts, ", "), "}");
}

struct Attr {
  int rank;
  std::string name;
  std::string value;
};

// Typed attributes of `instr` as (name, text) pairs.
void AddTypedAttributes(const HloInstruction& instr, const HloPrintOptions& o,
                        std::vector<Attr>* attrs) {
  auto add = [&](std::string_view name, std::string value) {
    attrs->push_back(Attr{AttributeRank(name).value_or(1000), std::string(name), std::move(value)});
  };
  auto comp = [&](const HloComputation* c) {
    return c ? Name(c->name(), o) : std::string("<null>");
  };
  auto comp_list = [&](const std::vector<HloComputation*>& cs) {
    std::vector<std::string> names;
    for (const HloComputation* c : cs) names.push_back(comp(c));
    return StrCat("{", absl::StrJoin(names, ", "), "}");
  };
  const HloOpcode op = instr.opcode();
  switch (op) {
    case HloOpcode::kGetTupleElement:
      add("index", StrCat(instr.tuple_index()));
      break;
    case HloOpcode::kFusion:
      add("kind", std::string(FusionKindString(instr.fusion_kind())));
      break;
    case HloOpcode::kCustomCall:
      add("custom_call_target", Quote(instr.custom_call_target()));
      break;
    case HloOpcode::kIota:
      add("iota_dimension", StrCat(instr.iota_dimension()));
      break;
    case HloOpcode::kCompare:
      add("direction", std::string(ComparisonDirectionToString(instr.comparison_direction())));
      if (instr.comparison_type())
        add("type", std::string(ComparisonTypeToString(*instr.comparison_type())));
      break;
    case HloOpcode::kSlice:
      add("slice", SliceToString(instr, o.xla_value_text));
      break;
    case HloOpcode::kDynamicSlice:
      add("dynamic_slice_sizes", IntList(instr.dynamic_slice_sizes()));
      break;
    case HloOpcode::kPad:
      add("padding", instr.padding_config().ToString());
      break;
    case HloOpcode::kDot:
    case HloOpcode::kRaggedDot: {
      const DotDimensionNumbers& d = instr.dot_dimension_numbers();
      if (!d.lhs_batch_dimensions.empty()) add("lhs_batch_dims", IntList(d.lhs_batch_dimensions));
      add("lhs_contracting_dims", IntList(d.lhs_contracting_dimensions));
      if (!d.rhs_batch_dimensions.empty()) add("rhs_batch_dims", IntList(d.rhs_batch_dimensions));
      add("rhs_contracting_dims", IntList(d.rhs_contracting_dimensions));
      break;
    }
    case HloOpcode::kGather: {
      const GatherDimensionNumbers& d = instr.gather_dimension_numbers();
      add("offset_dims", IntList(d.offset_dims));
      add("collapsed_slice_dims", IntList(d.collapsed_slice_dims));
      add("start_index_map", IntList(d.start_index_map));
      if (!d.operand_batching_dims.empty())
        add("operand_batching_dims", IntList(d.operand_batching_dims));
      if (!d.start_indices_batching_dims.empty()) {
        add("start_indices_batching_dims", IntList(d.start_indices_batching_dims));
      }
      add("index_vector_dim", StrCat(d.index_vector_dim));
      add("slice_sizes", IntList(instr.gather_slice_sizes()));
      if (instr.indices_are_sorted()) add("indices_are_sorted", "true");
      break;
    }
    case HloOpcode::kScatter: {
      const ScatterDimensionNumbers& d = instr.scatter_dimension_numbers();
      add("update_window_dims", IntList(d.update_window_dims));
      add("inserted_window_dims", IntList(d.inserted_window_dims));
      add("scatter_dims_to_operand_dims", IntList(d.scatter_dims_to_operand_dims));
      if (!d.input_batching_dims.empty())
        add("input_batching_dims", IntList(d.input_batching_dims));
      if (!d.scatter_indices_batching_dims.empty()) {
        add("scatter_indices_batching_dims", IntList(d.scatter_indices_batching_dims));
      }
      add("index_vector_dim", StrCat(d.index_vector_dim));
      if (instr.indices_are_sorted()) add("indices_are_sorted", "true");
      if (instr.unique_indices()) add("unique_indices", "true");
      break;
    }
    default:
      break;
  }
  if (instr.has_dimensions()) add("dimensions", IntList(instr.dimensions()));
  if (instr.has_window()) add("window", StrCat("{", instr.window().ToString(), "}"));
  if (instr.has_convolution_dimension_numbers()) add("dim_labels", instr.dim_labels());
  if (instr.feature_group_count() != 1)
    add("feature_group_count", StrCat(instr.feature_group_count()));
  if (instr.batch_group_count() != 1) add("batch_group_count", StrCat(instr.batch_group_count()));
  if (!instr.output_to_operand_aliasing().empty()) {
    add("output_to_operand_aliasing",
        OutputOperandAliasingToString(instr.output_to_operand_aliasing()));
  }
  if (instr.channel_id()) add("channel_id", StrCat(*instr.channel_id()));

  const auto& called = instr.called_computations();
  if (!called.empty()) {
    switch (op) {
      case HloOpcode::kWhile:
        add("condition", comp(instr.while_condition()));
        add("body", comp(instr.while_body()));
        break;
      case HloOpcode::kConditional:
        if (instr.conditional_uses_true_false_form() && called.size() == 2) {
          add("true_computation", comp(called[0]));
          add("false_computation", comp(called[1]));
        } else {
          add("branch_computations", comp_list(called));
        }
        break;
      case HloOpcode::kSelectAndScatter:
        add("select", comp(called[0]));
        if (called.size() > 1) add("scatter", comp(called[1]));
        break;
      case HloOpcode::kCustomCall:
        add("called_computations", comp_list(called));
        break;
      case HloOpcode::kFusion:
      case HloOpcode::kAsyncStart:
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAsyncDone:
        add("calls", comp(called[0]));
        break;
      default:
        if (called.size() == 1) {
          add("to_apply", comp(called[0]));
        } else {
          add("calls", comp_list(called));
        }
        break;
    }
  }
  if (!instr.frontend_attributes().empty())
    add("frontend_attributes", instr.frontend_attributes().ToString());
  if (!instr.control_predecessors().empty()) {
    std::vector<std::string> names;
    for (const HloInstruction* p : instr.control_predecessors())
      names.push_back(Name(p->name(), o));
    add("control-predecessors", StrCat("{", absl::StrJoin(names, ", "), "}"));
  }
}

// The instruction an async op wraps when XLA prints it with syntax sugar:
// its async-start's computation is that one instruction applied to the
// computation's parameters in order. Null otherwise.
const HloInstruction* SugaredAsyncOp(const HloInstruction& instr) {
  const HloInstruction* start = &instr;
  while (start->opcode() == HloOpcode::kAsyncUpdate || start->opcode() == HloOpcode::kAsyncDone) {
    if (start->operand_count() < 1) return nullptr;
    start = start->operand(0);
  }
  if (start->opcode() != HloOpcode::kAsyncStart || start->called_computations().size() != 1)
    return nullptr;
  const HloComputation* wrapped = start->called_computations()[0];
  if (wrapped == nullptr) return nullptr;
  const HloInstruction* root = wrapped->root_instruction();
  if (root == nullptr || root->opcode() == HloOpcode::kParameter ||
      wrapped->instruction_count() != wrapped->num_parameters() + 1 ||
      root->operand_count() != wrapped->num_parameters()) {
    return nullptr;
  }
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) != wrapped->parameter_instruction(i)) return nullptr;
  }
  return root;
}

void AppendInstruction(const HloInstruction& instr, const HloPrintOptions& o, std::string* out) {
  const bool is_async = instr.opcode() == HloOpcode::kAsyncStart ||
                        instr.opcode() == HloOpcode::kAsyncUpdate ||
                        instr.opcode() == HloOpcode::kAsyncDone;
  const HloInstruction* sugar = is_async && o.async_syntax_sugar ? SugaredAsyncOp(instr) : nullptr;
  std::string opcode(HloOpcodeString(instr.opcode()));
  if (sugar != nullptr) {
    opcode = StrCat(HloOpcodeString(sugar->opcode()),
                    instr.opcode() == HloOpcode::kAsyncStart    ? "-start"
                    : instr.opcode() == HloOpcode::kAsyncUpdate ? "-update"
                                                                : "-done");
  }
  StrAppend(out, Name(instr.name(), o), " = ", instr.shape().ToString(true), " ", opcode, "(");
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
      StrAppend(out, instr.parameter_number());
      break;
    case HloOpcode::kConstant:
      if (instr.has_literal()) {
        const Literal& lit = instr.literal();
        if (!o.print_large_constants && lit.shape().IsArray() && lit.element_count() > 10) {
          out->append("{...}");
        } else {
          out->append(lit.ToStringWithoutShape(o.xla_value_text ? LiteralTextStyle::kXla
                                                                : LiteralTextStyle::kHmo));
        }
      }
      break;
    default:
      for (int64_t k = 0; k < instr.operand_count(); ++k) {
        if (k > 0) {
          out->append(", ");
          if (k % 5 == 0) StrAppend(out, "/*index=", k, "*/");
        }
        const HloInstruction* operand = instr.operand(k);
        if (o.print_operand_shape) StrAppend(out, operand->shape().ToString(true), " ");
        out->append(Name(operand->name(), o));
      }
      break;
  }
  out->append(")");

  std::vector<Attr> attrs;
  AddTypedAttributes(instr, o, &attrs);
  for (const HloRawAttribute& raw : instr.raw_attributes()) {
    if (!o.print_metadata && raw.name == "metadata") continue;
    if (!o.print_backend_config && raw.name == "backend_config") continue;
    attrs.push_back(Attr{AttributeRank(raw.name).value_or(1000), raw.name, raw.value});
  }
  std::stable_sort(attrs.begin(), attrs.end(),
                   [](const Attr& a, const Attr& b) { return a.rank < b.rank; });
  if (is_async && o.async_syntax_sugar) {
    // XLA names the wrapped computation on the async-start only (and not at
    // all with sugar).
    std::erase_if(attrs, [&](const Attr& a) {
      return a.name == "calls" && (sugar != nullptr || instr.opcode() != HloOpcode::kAsyncStart);
    });
  }
  if (sugar != nullptr && instr.opcode() == HloOpcode::kAsyncStart) {
    // The start's own attributes, then the wrapped op's, then metadata and
    // backend_config.
    auto trailing = [](const Attr& a) {
      return a.name == "metadata" || a.name == "backend_config";
    };
    for (const Attr& a : attrs) {
      if (!trailing(a)) StrAppend(out, ", ", a.name, "=", a.value);
    }
    std::vector<Attr> wrapped;
    AddTypedAttributes(*sugar, o, &wrapped);
    for (const HloRawAttribute& raw : sugar->raw_attributes()) {
      if (raw.name == "metadata" || raw.name == "backend_config") continue;
      wrapped.push_back(Attr{AttributeRank(raw.name).value_or(1000), raw.name, raw.value});
    }
    std::stable_sort(wrapped.begin(), wrapped.end(),
                     [](const Attr& a, const Attr& b) { return a.rank < b.rank; });
    for (const Attr& a : wrapped) StrAppend(out, ", ", a.name, "=", a.value);
    for (const Attr& a : attrs) {
      if (trailing(a)) StrAppend(out, ", ", a.name, "=", a.value);
    }
    return;
  }
  for (const Attr& a : attrs) StrAppend(out, ", ", a.name, "=", a.value);
}

// Instruction order for printing: the schedule's sequence when there is one;
// otherwise the stored order, except that an instruction whose operands or
// control predecessors come later is preceded by them (a stable topological
// order, identical to the stored order when that is already topological).
std::vector<const HloInstruction*> PrintOrder(const HloComputation& c) {
  const HloModule* module = c.parent();
  if (module != nullptr && module->has_schedule() &&
      module->schedule().is_computation_scheduled(&c)) {
    const auto& seq = module->schedule().sequence(&c).instructions();
    if (static_cast<int64_t>(seq.size()) == c.instruction_count()) {
      return std::vector<const HloInstruction*>(seq.begin(), seq.end());
    }
  }
  std::vector<const HloInstruction*> order;
  order.reserve(c.instruction_count());
  absl::flat_hash_set<const HloInstruction*> emitted;
  bool topological = true;
  for (const HloInstruction* i : c.instructions()) {
    for (const HloInstruction* op : i->operands()) topological &= emitted.contains(op);
    for (const HloInstruction* p : i->control_predecessors()) topological &= emitted.contains(p);
    if (!topological) break;
    emitted.insert(i);
    order.push_back(i);
  }
  if (topological) return order;
  order.clear();
  emitted.clear();
  std::vector<std::pair<const HloInstruction*, size_t>> stack;
  for (const HloInstruction* root : c.instructions()) {
    if (emitted.contains(root)) continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [cur, next] = stack.back();
      const size_t n_ops = cur->operands().size();
      const size_t n_deps = n_ops + cur->control_predecessors().size();
      if (next < n_deps) {
        const HloInstruction* dep =
            next < n_ops ? cur->operands()[next] : cur->control_predecessors()[next - n_ops];
        ++next;
        if (!emitted.contains(dep)) stack.push_back({dep, 0});
        continue;
      }
      if (emitted.insert(cur).second) order.push_back(cur);
      stack.pop_back();
    }
  }
  return order;
}

void AppendComputation(const HloComputation& c, const HloPrintOptions& o, std::string* out) {
  if (c.IsEntryComputation()) out->append("ENTRY ");
  out->append(Name(c.name(), o));
  if (o.print_computation_signature) {
    out->append(" (");
    for (int64_t p = 0; p < c.num_parameters(); ++p) {
      if (p > 0) out->append(", ");
      const HloInstruction* param = c.parameter_instruction(p);
      // XLA's signatures carry no layouts.
      if (param) StrAppend(out, param->name(), ": ", param->shape().ToString(false));
    }
    out->append(") -> ");
    if (c.root_instruction()) out->append(c.root_instruction()->shape().ToString(false));
  }
  out->append(" {\n");
  for (const HloInstruction* i : PrintOrder(c)) {
    out->append(i == c.root_instruction() ? "  ROOT " : "  ");
    AppendInstruction(*i, o, out);
    out->append("\n");
  }
  out->append("}");
  if (!c.IsMainThread()) StrAppend(out, ", execution_thread=", Quote(c.execution_thread()));
}

}  // namespace

std::string PrintHloInstruction(const HloInstruction& instruction, const HloPrintOptions& options) {
  std::string out;
  AppendInstruction(instruction, options, &out);
  return out;
}

std::string PrintHloComputation(const HloComputation& computation, const HloPrintOptions& options) {
  std::string out;
  AppendComputation(computation, options, &out);
  return out;
}

std::string PrintHloModule(const HloModule& module, const HloPrintOptions& o) {
  std::string out = StrCat("HloModule ", module.name());
  if (module.has_schedule()) out += ", is_scheduled=true";
  if (!module.input_output_alias_config().empty()) {
    StrAppend(&out, ", input_output_alias=", module.input_output_alias_config().ToString());
  }
  if (!module.buffer_donor_config().empty()) {
    StrAppend(&out, ", buffer_donor=", module.buffer_donor_config().ToString());
  }
  if (module.alias_passthrough_params()) out += ", alias_passthrough_params=true";
  if (module.has_explicit_entry_computation_layout()) {
    StrAppend(&out, ", entry_computation_layout={", module.entry_computation_layout().ToString(),
              "}");
  }
  auto raw_is = [](const HloRawAttribute& a) {
    return a.name == "allow_spmd_sharding_propagation_to_parameters" ||
           a.name == "allow_spmd_sharding_propagation_to_output";
  };
  for (const HloRawAttribute& a : module.raw_attributes()) {
    if (raw_is(a)) StrAppend(&out, ", ", a.name, "=", a.value);
  }
  if (module.replica_count() != 1) StrAppend(&out, ", replica_count=", module.replica_count());
  if (module.num_partitions() != 1) StrAppend(&out, ", num_partitions=", module.num_partitions());
  if (!module.frontend_attributes().empty()) {
    StrAppend(&out, ", frontend_attributes=", module.frontend_attributes().ToString());
  }
  // XLA starts debug_attributes on a line of its own, and sets
  // origin_recovery_table off from the computations by two blank lines.
  bool recovery_table = false;
  for (const HloRawAttribute& a : module.raw_attributes()) {
    if (raw_is(a)) continue;
    StrAppend(&out, a.name == "debug_attributes" ? ",\n" : ", ", a.name, "=", a.value);
    recovery_table |= a.name == "origin_recovery_table";
  }
  out += "\n";
  if (recovery_table) out += "\n";
  // The stack-frame tables sit between the header and the computations,
  // set off by a blank line.
  if (!module.stack_frame_index().empty())
    StrAppend(&out, "\n", module.stack_frame_index().ToString());
  // With async sugar the computations the sugared ops wrap are implied.
  absl::flat_hash_set<const HloComputation*> implied;
  if (o.async_syntax_sugar) {
    for (const HloComputation* c : module.computations()) {
      for (const HloInstruction* i : c->instructions()) {
        if (i->opcode() == HloOpcode::kAsyncStart && SugaredAsyncOp(*i) != nullptr) {
          implied.insert(i->called_computations()[0]);
        }
      }
    }
  }
  for (const HloComputation* c : module.MakeComputationPostOrder()) {
    if (implied.contains(c)) continue;
    out += "\n";
    AppendComputation(*c, o, &out);
    out += "\n";
  }
  if (o.end_with_blank_line) out += "\n";
  return out;
}

}  // namespace hmo
