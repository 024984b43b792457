#include "hmo/pipeline/pipeline_text_parser.h"

#include <charconv>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"

namespace hmo {
namespace {

// Whether `c` ends a bare word. '=' ends names and keys but may appear in
// values (e.g. a list of key=value strings).
bool IsDelimiter(char c, bool in_value) {
  return c == ',' || c == '{' || c == '}' || c == '[' || c == ']' || c == '(' || c == ')' ||
         (c == '=' && !in_value) || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A recursive-descent reader over one line.
class TextPipelineReader {
 public:
  explicit TextPipelineReader(SourceText source) : source_(std::move(source)) {}

  absl::StatusOr<PipelineSpec> Read() {
    PipelineSpec spec;
    spec.source = source_;
    HMO_ASSIGN_OR_RETURN(spec.steps, ReadSteps());
    SkipSpace();
    if (!AtEnd()) return ErrorHere(fmt::format("unexpected '{}' after the pipeline", Peek()));
    return spec;
  }

 private:
  const std::string& text() const { return source_.text; }
  bool AtEnd() const { return pos_ >= text().size(); }
  char Peek() const { return AtEnd() ? '\0' : text()[pos_]; }
  SourcePosition Here() const { return {1, static_cast<int>(pos_) + 1}; }

  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) {
      ++pos_;
    }
  }

  absl::Status ErrorAt(SourcePosition position, std::string_view message) const {
    return SourceError(source_, position, message);
  }
  absl::Status ErrorHere(std::string_view message) const { return ErrorAt(Here(), message); }

  // Consumes `c` (after spaces) or reports what was expected.
  absl::Status Expect(char c, std::string_view context) {
    SkipSpace();
    if (Peek() == c) {
      ++pos_;
      return absl::OkStatus();
    }
    return ErrorHere(fmt::format("expected '{}' {}, got {}", c, context,
                                 AtEnd() ? std::string("the end") : fmt::format("'{}'", Peek())));
  }

  // Reads a WORD (bare or quoted) at the current position; `in_value` lets a
  // bare word contain '='.
  absl::StatusOr<std::string> ReadWord(std::string_view what, bool in_value = false) {
    SkipSpace();
    if (Peek() == '"' || Peek() == '\'') {
      const char quote = Peek();
      const SourcePosition start = Here();
      ++pos_;
      std::string word;
      while (!AtEnd() && Peek() != quote) word += text()[pos_++];
      if (AtEnd()) return ErrorAt(start, "unterminated quoted string");
      ++pos_;
      return word;
    }
    const size_t start = pos_;
    while (!AtEnd() && !IsDelimiter(Peek(), in_value)) ++pos_;
    if (pos_ == start) {
      return ErrorHere(fmt::format("expected {}, got {}", what,
                                   AtEnd() ? std::string("the end") : fmt::format("'{}'", Peek())));
    }
    return text().substr(start, pos_ - start);
  }

  absl::StatusOr<std::vector<PipelineStepSpec>> ReadSteps() {
    std::vector<PipelineStepSpec> steps;
    while (true) {
      HMO_ASSIGN_OR_RETURN(PipelineStepSpec step, ReadStep());
      steps.push_back(std::move(step));
      SkipSpace();
      if (Peek() != ',') return steps;
      ++pos_;
    }
  }

  absl::StatusOr<PipelineStepSpec> ReadStep() {
    SkipSpace();
    PipelineStepSpec step;
    step.position = Here();
    HMO_ASSIGN_OR_RETURN(std::string name, ReadWord("a pass name"));
    if (name == "fixed-point") return ReadFixedPoint(step.position);
    step.pass_name = std::move(name);
    SkipSpace();
    if (Peek() != '{') return step;
    ++pos_;
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return step;
    }
    while (true) {
      PipelineOptionSpec option;
      SkipSpace();
      option.key_position = Here();
      HMO_ASSIGN_OR_RETURN(option.assignment.key, ReadWord("an option name"));
      HMO_RETURN_IF_ERROR(Expect('=', fmt::format("after option name '{}'", option.assignment.key)));
      SkipSpace();
      option.value_position = Here();
      if (Peek() == '[') {
        ++pos_;
        std::vector<std::string> elements;
        SkipSpace();
        if (Peek() != ']') {
          while (true) {
            HMO_ASSIGN_OR_RETURN(std::string element,
                                 ReadWord("a list element", /*in_value=*/true));
            elements.push_back(std::move(element));
            SkipSpace();
            if (Peek() != ',') break;
            ++pos_;
          }
        }
        HMO_RETURN_IF_ERROR(Expect(']', "to close the list"));
        option.assignment.value = std::move(elements);
      } else {
        HMO_ASSIGN_OR_RETURN(std::string value,
                             ReadWord(fmt::format("a value for option '{}'", option.assignment.key),
                                      /*in_value=*/true));
        option.assignment.value = std::move(value);
      }
      step.options.push_back(std::move(option));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      HMO_RETURN_IF_ERROR(Expect('}', fmt::format("to close the options of '{}'", step.pass_name)));
      return step;
    }
  }

  absl::StatusOr<PipelineStepSpec> ReadFixedPoint(SourcePosition position) {
    PipelineStepSpec step;
    step.kind = PipelineStepSpec::Kind::kFixedPoint;
    step.position = position;
    step.max_iterations = kDefaultFixedPointIterations;
    SkipSpace();
    if (Peek() == '(') {
      ++pos_;
      SkipSpace();
      const SourcePosition key_position = Here();
      HMO_ASSIGN_OR_RETURN(std::string key, ReadWord("'max-iterations'"));
      if (key != "max-iterations") {
        return ErrorAt(key_position,
                       fmt::format("unknown fixed-point setting '{}'; expected 'max-iterations'", key));
      }
      HMO_RETURN_IF_ERROR(Expect('=', "after 'max-iterations'"));
      SkipSpace();
      const SourcePosition value_position = Here();
      HMO_ASSIGN_OR_RETURN(std::string value, ReadWord("an iteration count"));
      auto [end, error] =
          std::from_chars(value.data(), value.data() + value.size(), step.max_iterations);
      if (error != std::errc() || end != value.data() + value.size() || step.max_iterations < 1) {
        return ErrorAt(value_position,
                       fmt::format("'max-iterations' must be an integer of at least 1, got '{}'",
                                   value));
      }
      HMO_RETURN_IF_ERROR(Expect(')', "after the fixed-point settings"));
    }
    if (fixed_point_depth_ >= kMaxFixedPointNesting) {
      return ErrorAt(position, fmt::format("fixed-point groups nest more than {} deep",
                                           kMaxFixedPointNesting));
    }
    HMO_RETURN_IF_ERROR(Expect('{', "to open the fixed-point group"));
    ++fixed_point_depth_;
    absl::StatusOr<std::vector<PipelineStepSpec>> steps = ReadSteps();
    --fixed_point_depth_;
    if (!steps.ok()) return steps.status();
    step.steps = *std::move(steps);
    HMO_RETURN_IF_ERROR(Expect('}', "to close the fixed-point group"));
    return step;
  }

  SourceText source_;
  size_t pos_ = 0;
  int64_t fixed_point_depth_ = 0;
};

}  // namespace

absl::StatusOr<PipelineSpec> ParsePipelineText(std::string_view text,
                                               std::string_view source_name) {
  return TextPipelineReader(SourceText{std::string(source_name), std::string(text)}).Read();
}

}  // namespace hmo
