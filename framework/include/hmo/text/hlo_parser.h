#ifndef HMO_TEXT_HLO_PARSER_H_
#define HMO_TEXT_HLO_PARSER_H_

// Parser for XLA's HLO text format (what XLA's HloModule::ToString and the
// hlo tools write): long form (`%name`, typed operands) and short form,
// optional `HloModule` header, computations with or without signatures,
// optional ENTRY (else the last computation) and ROOT (else the last
// instruction), `//` and `/* */` comments.
//
// Errors are absl::InvalidArgumentError with the message
//   <file>:<line>:<col>: error: <message>
//   <the source line>
//   <spaces>^
// Line and column are 1-based and relative to the whole input text (also for
// the second and later modules of ParseHloModules).

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/literal.h"
#include "hmo/ir/shape.h"

namespace hmo {

// Parses one module. The text may contain leading comments; it must hold
// exactly one module (use ParseHloModules for `// -----` separated files).
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text,
                                                          std::string_view filename = "<input>");

// Parses a text holding several modules separated by lines that start with
// `// -----` (hlo-opt --split-input-file convention). A part holding only
// comments/whitespace is skipped.
absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> ParseHloModules(
    std::string_view text, std::string_view filename = "<input>");

// Reads `path` and parses it with ParseHloModule; the path is the filename
// in error messages. NotFound if the file cannot be read.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(std::string_view path);
// Reads `path` and parses it with ParseHloModules.
absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> ParseHloModulesFile(std::string_view path);

// Parses a shape alone: "f32[2,3]{1,0}", "(s32[], token[])".
absl::StatusOr<Shape> ParseShape(std::string_view text);
// Parses a layout alone: "{1,0:T(8,128)S(1)}".
absl::StatusOr<Layout> ParseLayout(std::string_view text);
// Parses a literal's value text for `shape`: "{1, 2}", "-inf", "{...}".
absl::StatusOr<Literal> ParseLiteral(std::string_view text, const Shape& shape);

}  // namespace hmo

#endif  // HMO_TEXT_HLO_PARSER_H_
