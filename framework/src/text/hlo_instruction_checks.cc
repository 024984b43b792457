#include "hlo_instruction_checks.h"

#include <algorithm>
#include <array>
#include <vector>

#include "../ir/str_cat.h"
#include "absl/strings/numbers.h"
#include "hmo/ir/shape_equality.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::text_internal {
namespace {

using ir_internal::StrCat;

// custom-call api_version values XLA knows; UNSPECIFIED is known but invalid.
constexpr std::array kApiVersions = {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                                     "API_VERSION_STATUS_RETURNING_UNIFIED",
                                     "API_VERSION_TYPED_FFI"};


std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Top-level comma-separated items of "{a, b{...}, c}" (braces and parens
// nest); nullopt-like empty vector with ok=false when not braced.
bool SplitBraced(std::string_view text, std::vector<std::string_view>* items) {
  text = Trim(text);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  std::string_view inside = text.substr(1, text.size() - 2);
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inside.size(); ++i) {
    const char c = inside[i];
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      items->push_back(Trim(inside.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!Trim(inside.substr(start)).empty() || !items->empty()) items->push_back(Trim(inside.substr(start)));
  return true;
}

std::string CheckApiVersion(std::string_view value) {
  value = Trim(value);
  if (value == "API_VERSION_UNSPECIFIED") {
    return "invalid API version API_VERSION_UNSPECIFIED: a custom call needs a specific api_version";
  }
  for (const char* known : kApiVersions) {
    if (value == known) return "";
  }
  return StrCat("unknown API version '", ir_internal::AbslView(value), "' (known: API_VERSION_ORIGINAL, "
                "API_VERSION_STATUS_RETURNING, API_VERSION_STATUS_RETURNING_UNIFIED, "
                "API_VERSION_TYPED_FFI)");
}

std::string CheckOperandLayoutConstraints(const HloInstruction& instr, std::string_view value) {
  std::vector<std::string_view> items;
  if (!SplitBraced(value, &items)) return "operand_layout_constraints must be a braced list of shapes";
  if (static_cast<int64_t>(items.size()) != instr.operand_count()) {
    return StrCat("expected ", instr.operand_count(), " operand layout constraints (one per operand), ",
                  items.size(), " given");
  }
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StatusOr<Shape> shape = ParseShape(items[i]);
    if (!shape.ok()) {
      return StrCat("operand layout constraint ", i, " is not a shape: ",
                    ir_internal::AbslView(items[i]));
    }
    if (!ShapesEqual(*shape, instr.operand(i)->shape())) {
      return StrCat("operand layout constraint ", i, " (", shape->ToString(true),
                    ") is not compatible with operand shape ", instr.operand(i)->shape().ToString(true));
    }
    bool has_layouts = true;
    std::vector<const Shape*> stack = {&*shape};
    while (!stack.empty()) {
      const Shape* s = stack.back();
      stack.pop_back();
      if (s->IsTuple()) {
        for (const Shape& e : s->tuple_shapes()) stack.push_back(&e);
      } else if (s->IsArray() && s->rank() > 0 && !s->has_layout()) {
        has_layouts = false;
      }
    }
    if (!has_layouts) return StrCat("operand layout constraint ", i, " must have a layout");
  }
  return "";
}

// `{mode=default|highest}` or `{tolerance={atol=F rtol=F ulps=N}}`.
std::string CheckResultAccuracy(const HloInstruction& instr, std::string_view value) {
  // XLA takes result_accuracy on the transcendental unary ops.
  if (!IsFloatingUnaryOpcode(instr.opcode()) && instr.opcode() != HloOpcode::kErf) {
    return StrCat("unexpected attribute result_accuracy on ", HloOpcodeString(instr.opcode()),
                  ": only transcendental unary ops take it");
  }
  std::vector<std::string_view> items;
  if (!SplitBraced(value, &items) || items.size() != 1) {
    return "result_accuracy must be {mode=...} or {tolerance={...}}";
  }
  const std::string_view item = items[0];
  const size_t eq = item.find('=');
  if (eq == std::string_view::npos) return "result_accuracy expects an attribute name (mode= or tolerance=)";
  const std::string_view key = Trim(item.substr(0, eq));
  const std::string_view v = Trim(item.substr(eq + 1));
  if (key == "mode") {
    if (v == "default" || v == "highest") return "";
    return StrCat("result_accuracy mode expects a ResultAccuracy type (default or highest), got '",
                  ir_internal::AbslView(v), "'");
  }
  if (key == "tolerance") {
    std::vector<std::string_view> fields;
    if (!SplitBraced(v, &fields)) return "result_accuracy tolerance must be {atol=... rtol=... ulps=...}";
    return "";
  }
  return StrCat("invalid result_accuracy attribute name '", ir_internal::AbslView(key),
                "' (expected mode or tolerance)");
}

// `mesh['a'=2,'b'=2, device_ids=(...)] {'b', ...}`: the axes named in the
// braces must be axes of the mesh (by name or index), and device_ids, when
// given, must list one device per mesh position. Other forms pass.
std::string CheckMeshReplicaGroups(std::string_view value) {
  value = Trim(value);
  if (value.substr(0, 5) != "mesh[") return "";
  const size_t close = value.find(']');
  if (close == std::string_view::npos) return "";
  std::vector<std::string_view> axes;
  int64_t positions = 1;
  int64_t device_ids = -1;
  std::string_view inside = value.substr(5, close - 5);
  const size_t ids = inside.find("device_ids=(");
  if (ids != std::string_view::npos) {
    const size_t end = inside.find(')', ids);
    std::string_view list = inside.substr(ids + 12, end == std::string_view::npos ? 0 : end - ids - 12);
    device_ids = list.empty() ? 0 : static_cast<int64_t>(std::count(list.begin(), list.end(), ',')) + 1;
    inside = inside.substr(0, ids);
  }
  for (size_t start = 0; start < inside.size();) {
    size_t end = inside.find(',', start);
    if (end == std::string_view::npos) end = inside.size();
    std::string_view item = Trim(inside.substr(start, end - start));
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos && item.size() > 2 && item.front() == '\'') {
      axes.push_back(Trim(item.substr(0, eq)));
      int64_t size = 0;
      if (absl::SimpleAtoi(ir_internal::AbslView(Trim(item.substr(eq + 1))), &size)) positions *= size;
    }
    start = end + 1;
  }
  if (device_ids >= 0 && device_ids != positions) {
    return StrCat("mesh device_ids lists ", device_ids, " devices but the mesh has ", positions, " positions");
  }
  std::vector<std::string_view> groups;
  if (!SplitBraced(value.substr(close + 1), &groups)) return "";
  for (std::string_view group : groups) {
    if (group.size() < 2 || group.front() != '\'' || group.back() != '\'') continue;  // sub-axis forms
    const std::string_view name = group;
    bool known = std::find(axes.begin(), axes.end(), name) != axes.end();
    int64_t index = -1;
    if (!known && absl::SimpleAtoi(ir_internal::AbslView(name.substr(1, name.size() - 2)), &index)) {
      if (index < 0 || index >= static_cast<int64_t>(axes.size())) {
        return StrCat("mesh axis index ", index, " is out of bounds for mesh of ", axes.size(), " axes");
      }
      known = true;
    }
    if (!known) {
      return StrCat(ir_internal::AbslView(name), " is not a valid axis name or index of the mesh");
    }
  }
  return "";
}

}  // namespace

std::string CheckDimLevelTypes(std::string_view text) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = Trim(text.substr(start, end - start));
    const bool known = !item.empty() && (item[0] == 'D' || item[0] == 'C' || item[0] == 'S' || item[0] == 'H');
    bool suffix_ok = true;
    for (size_t i = 1; i < item.size(); ++i) suffix_ok &= item[0] != 'D' && (item[i] == '+' || item[i] == '~');
    if (!known || !suffix_ok) {
      return StrCat("expected a DimLevelType abbreviation (D, C, S or H, optionally with + or ~), got '",
                    ir_internal::AbslView(item), "'");
    }
    start = end + 1;
  }
  return "";
}

InstructionCheckError CheckParsedInstruction(const HloInstruction& instr) {
  auto fail = [](std::string attribute, std::string message) {
    return InstructionCheckError{std::move(attribute), std::move(message)};
  };
  if (instr.opcode() == HloOpcode::kCustomCall) {
    if (auto v = instr.GetRawAttribute("api_version")) {
      if (std::string m = CheckApiVersion(*v); !m.empty()) return fail("api_version", m);
    }
    if (auto v = instr.GetRawAttribute("operand_layout_constraints")) {
      if (std::string m = CheckOperandLayoutConstraints(instr, *v); !m.empty()) {
        return fail("operand_layout_constraints", m);
      }
    }
  }
  if (auto v = instr.GetRawAttribute("replica_groups")) {
    if (std::string m = CheckMeshReplicaGroups(*v); !m.empty()) return fail("replica_groups", m);
  }
  if (auto v = instr.GetRawAttribute("result_accuracy")) {
    if (std::string m = CheckResultAccuracy(instr, *v); !m.empty()) return fail("result_accuracy", m);
  }
  if (instr.opcode() == HloOpcode::kConditional && instr.operand_count() >= 1) {
    const Shape& index = instr.operand(0)->shape();
    const bool is_pred = index.IsArray() && index.rank() == 0 && index.element_type() == PrimitiveType::PRED;
    const bool is_s32 = index.IsArray() && index.rank() == 0 && index.element_type() == PrimitiveType::S32;
    if (!is_pred && !is_s32) {
      return fail("", StrCat("the branch index of a conditional must be a scalar pred or s32, got ",
                             index.ToString(false)));
    }
    if (is_pred && !instr.conditional_uses_true_false_form()) {
      return fail("branch_computations",
                  "a conditional on a pred takes true_computation and false_computation, not "
                  "branch_computations");
    }
    if (is_s32 && instr.conditional_uses_true_false_form()) {
      return fail("true_computation",
                  "a conditional on an s32 index takes branch_computations, not "
                  "true_computation/false_computation");
    }
  }
  if (instr.opcode() == HloOpcode::kParameter) {
    if (auto v = instr.GetRawAttribute("parameter_replication")) {
      std::vector<std::string_view> items;
      const int64_t leaves = ShapeUtil::GetLeafCount(instr.shape());
      if (SplitBraced(*v, &items) && static_cast<int64_t>(items.size()) != leaves) {
        return fail("parameter_replication",
                    StrCat("parameter has ", leaves, " leaf buffers, but parameter_replication has ",
                           items.size(), " elements"));
      }
    }
  }
  if (instr.opcode() == HloOpcode::kRecv) {
    const Shape& s = instr.shape();
    if (!s.IsTuple() || s.tuple_shapes_size() != 3 || !s.tuple_shapes(2).IsToken()) {
      return fail("", StrCat("recv must have shape (data, u32[], token[]), got ", s.ToString(false)));
    }
  }
  return {};
}

}  // namespace hmo::text_internal
