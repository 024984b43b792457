#ifndef HMO_SRC_TEXT_HLO_TEXT_PARSER_H_
#define HMO_SRC_TEXT_HLO_TEXT_PARSER_H_

// The HLO text parser's state and methods, one class whose definitions are
// split by what they read: hlo_parser_values.cc (errors, integers, strings,
// names), hlo_parser_shapes.cc (shapes and layouts), hlo_parser_literals.cc,
// hlo_parser_attributes.cc (typed attributes, computation references),
// hlo_parser_instructions.cc (instructions and computations) and
// hlo_parser_module.cc (the module header, stack-frame tables, the module).
// hlo_parser.cc holds the public entry points (hmo/text/hlo_parser.h).
// Internal to the text library.

#include "hmo/text/hlo_parser.h"
#include "../ir/str_cat.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "../ir/hlo_attribute_order.h"
#include "hmo/base/status_macros.h"
#include "hlo_instruction_checks.h"
#include "hlo_lexer.h"
#include "parsed_shape_inference.h"

namespace hmo::text_internal {

using ir_internal::StrAppend;
using ir_internal::StrCat;

inline absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view StdView(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

inline std::string_view StripPercent(std::string_view name) {
  return !name.empty() && name[0] == '%' ? name.substr(1) : name;
}

// A reference to a computation by name, resolved once the whole module has
// been read (callees may be written after their callers).
struct PendingCall {
  HloInstruction* instruction;
  size_t slot;
  std::string_view name;
  size_t offset;
};

// Computation references of one instruction, by attribute.
struct CallRefs {
  struct Ref {
    std::string_view name;
    size_t offset;
  };
  std::vector<std::pair<std::string_view, std::vector<Ref>>> by_attr;
  const std::vector<Ref>* Get(std::string_view attr) const {
    for (const auto& [name, refs] : by_attr) {
      if (name == attr) return &refs;
    }
    return nullptr;
  }
};

class Parser {
 public:
  Parser(std::string_view source, size_t begin, size_t end, std::string_view filename)
      : src_(source), lexer_(source, begin, end), filename_(filename) {}

  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  absl::StatusOr<Shape> ParseStandaloneShape();
  absl::StatusOr<Layout> ParseStandaloneLayout();
  absl::StatusOr<Literal> ParseStandaloneLiteral(const Shape& shape);

 private:
  // ------------------------------------------------------------ errors
  absl::Status Error(size_t offset, std::string_view message) const;
  absl::Status ErrorHere(std::string_view message) const {
    return Error(lexer_.Peek().offset, message);
  }
  std::string Describe(const Token& t) const;
  // "expected <what>, got <current token>".
  absl::Status Unexpected(std::string_view what) const;
  absl::Status Expect(TokKind kind, std::string_view what);
  bool TryConsume(TokKind kind) {
    if (lexer_.kind() != kind) return false;
    lexer_.Next();
    return true;
  }
  bool AtName(std::string_view text) const {
    return lexer_.kind() == TokKind::kName && lexer_.Peek().text == text;
  }

  // --------------------------------------------------------- structure
  absl::Status ParseModuleAttribute();
  absl::Status ParseComputation();
  absl::Status ParseComputationBody(std::string_view name, size_t name_offset,
                                    int64_t signature_params, std::unique_ptr<HloComputation>* out);
  absl::Status ParseSignature(int64_t* parameter_count, Shape* result);
  absl::Status ParseInstruction(HloComputation* computation, HloInstruction** root,
                                size_t* root_offset);
  // `[shape] opcode(operands)[, attributes]`; `nested` for an operand written
  // as an instruction (no attributes, no name: named `<opcode>.anon`).
  absl::Status ParseInstructionRhs(HloComputation* computation, std::string_view name,
                                   size_t name_offset, bool nested, HloInstruction** out);
  absl::Status ParseOperands(HloComputation* computation, HloInstruction* instr);
  absl::Status ParseOperand(HloComputation* computation, HloInstruction** operand);
  absl::Status ParseCompactTupleIndices(HloComputation* computation, HloInstruction** value);
  absl::Status AddImplicitParameter(HloComputation* computation, std::string_view name,
                                    const Shape& shape, size_t offset, HloInstruction** out);
  absl::StatusOr<Shape> InferParsedShape(const HloInstruction& instr, const CallRefs& refs) const;
  std::string UniqueLocalName(std::string_view base);
  bool AtShape() const;
  // Every recursive production enters here; XLA's parser has the same limit.
  absl::Status EnterNesting();
  static constexpr int kMaxNestingDepth = 500;
  absl::StatusOr<std::unique_ptr<HloModule>> ParseSingleInstructionModule();
  absl::Status CheckParameterNumbering(const HloComputation& computation, size_t offset);
  absl::Status ParseAttribute(HloInstruction* instr, CallRefs* refs,
                              std::vector<std::string_view>* seen);
  // The attribute groups ParseAttribute tries in turn: each parses the value
  // of `name` when it knows that attribute for the instruction's opcode and
  // says whether it did; ParseRawAttribute keeps the rest verbatim.
  absl::StatusOr<bool> ParseEnumAttribute(HloInstruction* instr, std::string_view name);
  absl::StatusOr<bool> ParseScalarAttribute(HloInstruction* instr, std::string_view name);
  absl::StatusOr<bool> ParseArrayAttribute(HloInstruction* instr, std::string_view name,
                                           size_t value_offset);
  absl::StatusOr<bool> ParseDimensionNumbersAttribute(HloInstruction* instr, std::string_view name);
  absl::StatusOr<bool> ParseReferenceAttribute(HloInstruction* instr, std::string_view name,
                                               CallRefs* refs);
  absl::Status ParseControlPredecessors();
  absl::Status ParseRawAttribute(HloInstruction* instr, std::string_view name, size_t value_offset);
  absl::Status CheckRequiredAttributes(const HloInstruction* instr, const CallRefs& refs,
                                       const std::vector<std::string_view>& seen,
                                       size_t opcode_offset);
  absl::Status AssignCallSlots(HloInstruction* instr, const CallRefs& refs);
  absl::Status ResolveCalls();

  // ------------------------------------------------------------ values
  absl::Status ParseShape(Shape* shape);
  // Parses a shape and points *out at it: at a cached copy when the same
  // array-shape text was parsed before, else at *scratch.
  absl::Status ParseShapeView(Shape* scratch, const Shape** out);
  absl::Status ParseArrayShape(Shape* shape);
  absl::Status ParseLayout(const Shape& shape, Layout* layout);
  absl::Status ParseLiteral(const Shape& shape, Literal* literal);
  absl::Status ParseArrayLevel(const Shape& shape, int64_t dim, Literal* literal, int64_t* linear);
  absl::Status ParseElement(Literal* literal, int64_t linear);
  absl::Status ParseNanPayload(Literal* literal, int64_t linear, bool store);
  absl::Status CheckFloatInRange(const Token& t, double value, PrimitiveType type) const;
  absl::Status ParseInt(int64_t* value);
  absl::Status ParseBool(bool* value);
  absl::Status ParseString(std::string* value);
  absl::Status ParseIntList(std::vector<int64_t>* values);  // {1,2,3}
  absl::Status ParseShapeIndex(ShapeIndex* index);          // {0,1}
  absl::Status ParseName(std::string_view what, std::string_view* name);
  absl::Status ParseRawValue(std::string* value);
  absl::Status ParseSlice(HloInstruction* instr);
  absl::Status ParsePadding(PaddingConfig* padding);
  absl::Status ParseWindow(Window* window);
  absl::Status ParseFrontendAttributes(FrontendAttributes* attrs);
  absl::Status ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* aliases);
  absl::Status ParseComputationRefs(std::string_view attr, bool list, CallRefs* refs);
  absl::Status ParseInlineComputation(std::string_view attribute, CallRefs::Ref* ref);
  absl::Status ParseEntryComputationLayout();
  absl::Status ParseInputOutputAlias();
  absl::Status ParseBufferDonor();
  absl::Status ParseStackFrameTables();
  absl::Status ParseStackFrameTable(std::string_view table);
  absl::Status ParseTableFields(std::string_view table,
                                const std::vector<std::pair<std::string_view, int64_t*>>& fields);

  std::string_view src_;
  // How many "parameter(" the input holds: no parameter number can reach it.
  int64_t MaxParameterCount() {
    if (max_parameter_count_ < 0) {
      max_parameter_count_ = 0;
      for (size_t at = src_.find("parameter("); at != std::string_view::npos;
           at = src_.find("parameter(", at + 1)) {
        ++max_parameter_count_;
      }
    }
    return max_parameter_count_;
  }
  int64_t max_parameter_count_ = -1;
  // The line and column of `offset`, counting lines as Error does. Offsets
  // mostly grow, so a cursor makes the whole parse linear.
  HloInstruction::SourceLocation LocationOf(size_t offset) {
    if (offset > src_.size()) offset = src_.size();
    if (offset < location_cursor_) {
      location_cursor_ = 0;
      location_line_ = 1;
      location_line_start_ = 0;
    }
    for (size_t i = location_cursor_; i < offset; ++i) {
      if (src_[i] == '\n' || (src_[i] == '\r' && (i + 1 >= src_.size() || src_[i + 1] != '\n'))) {
        ++location_line_;
        location_line_start_ = i + 1;
      }
    }
    location_cursor_ = offset;
    return {location_line_, static_cast<int64_t>(offset - location_line_start_ + 1)};
  }
  size_t location_cursor_ = 0;
  int64_t location_line_ = 1;
  size_t location_line_start_ = 0;
  static constexpr int64_t kSmallParameterNumber = 4096;
  HloLexer lexer_;
  std::string_view filename_;

  std::unique_ptr<HloModule> module_;
  bool is_scheduled_ = false;
  HloComputation* entry_ = nullptr;
  size_t entry_layout_offset_ = 0;
  absl::flat_hash_map<absl::string_view, std::pair<HloComputation*, size_t>> computations_;
  absl::flat_hash_map<absl::string_view, HloInstruction*> instructions_;  // current computation
  std::vector<PendingCall> pending_calls_;
  std::vector<HloInstruction*> async_done_without_calls_;
  std::vector<HloInstruction*> pending_control_predecessors_;
  // `<op>-start` instructions, parsed as <op> with the async shape.
  std::vector<std::pair<HloInstruction*, size_t>> async_sugar_starts_;
  absl::Status ExpandAsyncSugar();
  absl::Status CheckAsyncChains();
  // async-update / async-done, with the opcode their sugar form names
  // (`add-done`: add), checked once the module is read.
  struct AsyncContinuation {
    HloInstruction* instruction;
    std::optional<HloOpcode> sugar_opcode;
    size_t offset;
  };
  std::vector<AsyncContinuation> async_continuations_;
  HloInstruction* last_added_ = nullptr;
  // Byte offsets of FileLocations / StackFrames entries, for errors.
  std::vector<size_t> file_location_offsets_;
  std::vector<size_t> stack_frame_offsets_;
  int nesting_depth_ = 0;
  // Array shapes parsed so far, by their exact text: a dump writes the same
  // few shapes on every operand, and a hit skips lexing and allocation.
  // Node-based, so the pointers ParseShapeView hands out stay valid.
  absl::node_hash_map<absl::string_view, Shape> shape_by_text_;
  // A text that is one instruction: unknown operands become parameters.
  bool single_instruction_ = false;
  int64_t next_implicit_parameter_ = 0;
  absl::flat_hash_map<std::pair<const HloInstruction*, int64_t>, HloInstruction*>
      compact_tuple_elements_;
  // Where each attribute value of the instruction being parsed starts.
  std::vector<std::pair<std::string_view, size_t>> attribute_offsets_;
};

}  // namespace hmo::text_internal

#endif  // HMO_SRC_TEXT_HLO_TEXT_PARSER_H_
