#include "hmo/pipeline/pipeline_yaml_parser.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "fmt/format.h"
#include "hmo/analysis/byte_size.h"
#include "hmo/base/input_file.h"
#include "hmo/base/status_macros.h"
#include "hmo/pass/spelling_suggestion.h"

namespace hmo {
namespace {

std::string_view NodeKindName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

// Reads one pipeline document, reporting errors against `source_`.
class YamlPipelineReader {
 public:
  explicit YamlPipelineReader(SourceText source) : source_(std::move(source)) {}

  absl::StatusOr<PipelineSpec> Read() {
    YAML::Node root;
    try {
      root = YAML::Load(source_.text);
    } catch (const YAML::Exception& e) {
      return SourceError(source_, {e.mark.line + 1, e.mark.column + 1}, e.msg);
    }
    if (!root.IsMap()) {
      return Error(root, {1, 1},
                   fmt::format("a pipeline is a mapping with 'version' and 'passes', got {}",
                               NodeKindName(root)));
    }
    HMO_RETURN_IF_ERROR(CheckKeys(root,
                                  {"version", "plugins", "verify", "dump", "memory-limit", "target",
                                   "max-pass-runs", "passes"},
                                  "at the top level"));
    PipelineSpec spec;
    spec.source = source_;

    const YAML::Node version = root["version"];
    if (!version) return Error(root, {1, 1}, "missing 'version' (this hmo reads version 1)");
    HMO_ASSIGN_OR_RETURN(int64_t version_number, ReadInt(version, "'version'"));
    if (version_number != kPipelineSchemaVersion) {
      return Error(version, {}, fmt::format("unsupported pipeline version {}; this hmo reads "
                                            "version {}",
                                            version_number, kPipelineSchemaVersion));
    }
    spec.version = static_cast<int>(version_number);

    if (const YAML::Node plugins = root["plugins"]; plugins && !plugins.IsNull()) {
      HMO_RETURN_IF_ERROR(ExpectKind(plugins, YAML::NodeType::Sequence, "'plugins'"));
      for (const YAML::Node& plugin : plugins) {
        HMO_ASSIGN_OR_RETURN(std::string reference, ReadScalar(plugin, "a plugin"));
        spec.plugins.push_back({std::move(reference), Position(plugin, {})});
      }
    }

    if (const YAML::Node verify = root["verify"]; verify) {
      HMO_ASSIGN_OR_RETURN(std::string mode, ReadScalar(verify, "'verify'"));
      if (mode == "never") {
        spec.verify = VerifyMode::kNever;
      } else if (mode == "changed") {
        spec.verify = VerifyMode::kChanged;
      } else if (mode == "always") {
        spec.verify = VerifyMode::kAlways;
      } else {
        return Error(verify, {},
                     fmt::format("'verify' is never, changed or always, got '{}'{}", mode,
                                 DidYouMean(mode, {"never", "changed", "always"})));
      }
    }

    if (const YAML::Node dump = root["dump"]; dump && !dump.IsNull()) {
      HMO_RETURN_IF_ERROR(ExpectKind(dump, YAML::NodeType::Map, "'dump'"));
      HMO_RETURN_IF_ERROR(CheckKeys(dump, {"to", "after"}, "in 'dump'"));
      if (const YAML::Node to = dump["to"]; to) {
        HMO_ASSIGN_OR_RETURN(spec.dump.directory, ReadScalar(to, "'dump.to'"));
      }
      if (const YAML::Node after = dump["after"]; after) {
        HMO_ASSIGN_OR_RETURN(spec.dump.after, ReadScalar(after, "'dump.after'"));
        spec.dump_after_position = Position(after, {});
      }
    }

    if (const YAML::Node limit = root["memory-limit"]; limit) {
      HMO_ASSIGN_OR_RETURN(std::string text, ReadScalar(limit, "'memory-limit'"));
      absl::StatusOr<int64_t> bytes = ParseByteSize(text);
      if (!bytes.ok()) {
        return Error(limit, {},
                     fmt::format("'memory-limit': {}", std::string(bytes.status().message())));
      }
      spec.memory_limit = *bytes;
      spec.memory_limit_position = Position(limit, {});
    }

    if (const YAML::Node target = root["target"]; target) {
      HMO_ASSIGN_OR_RETURN(spec.target, ReadScalar(target, "'target'"));
      if (spec.target.empty()) return Error(target, {}, "'target' names a backend (e.g. cpu, gpu)");
      spec.target_position = Position(target, {});
    }

    if (const YAML::Node cap = root["max-pass-runs"]; cap) {
      HMO_ASSIGN_OR_RETURN(spec.max_pass_runs, ReadInt(cap, "'max-pass-runs'"));
      if (spec.max_pass_runs < 1) {
        return Error(cap, {},
                     fmt::format("'max-pass-runs' must be at least 1, got {}", spec.max_pass_runs));
      }
    }

    const YAML::Node passes = root["passes"];
    if (!passes) return Error(root, {1, 1}, "missing 'passes' (the list of passes to run)");
    HMO_ASSIGN_OR_RETURN(spec.steps, ReadSteps(passes, "'passes'", KeyPosition(root, "passes")));
    return spec;
  }

 private:
  SourcePosition Position(const YAML::Node& node, SourcePosition fallback) const {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return fallback;
    return {mark.line + 1, mark.column + 1};
  }

  // The position of key `key` in mapping `map`.
  SourcePosition KeyPosition(const YAML::Node& map, std::string_view key) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) return Position(it->first, {});
    }
    return Position(map, {});
  }

  absl::Status Error(const YAML::Node& node, SourcePosition fallback, std::string_view message) {
    return SourceError(source_, Position(node, fallback), message);
  }

  absl::Status ExpectKind(const YAML::Node& node, YAML::NodeType::value kind,
                          std::string_view what) {
    if (node.Type() == kind) return absl::OkStatus();
    std::string_view expected = kind == YAML::NodeType::Map        ? "a mapping"
                                : kind == YAML::NodeType::Sequence ? "a list"
                                                                   : "a scalar";
    return Error(node, {}, fmt::format("{} must be {}, got {}", what, expected, NodeKindName(node)));
  }

  // Reports a key that appears twice in `map` (yaml-cpp keeps the first and
  // drops the second silently).
  absl::Status CheckNoDuplicateKeys(const YAML::Node& map, std::string_view where) {
    std::vector<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
        return Error(it->first, {}, fmt::format("duplicate key '{}' {}", name, where));
      }
      seen.push_back(name);
    }
    return absl::OkStatus();
  }

  // Reports a repeated key, then the first key of `map` not in `allowed`.
  absl::Status CheckKeys(const YAML::Node& map, const std::vector<std::string>& allowed,
                         std::string_view where) {
    HMO_RETURN_IF_ERROR(CheckNoDuplicateKeys(map, where));
    for (auto it = map.begin(); it != map.end(); ++it) {
      // A copy (a Node is a handle): `it->first` lives in a temporary that
      // dies at the end of this statement.
      const YAML::Node key = it->first;
      const std::string name = key.IsScalar() ? key.Scalar() : std::string("?");
      if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
      return Error(key, {},
                   fmt::format("unknown key '{}' {}{}; expected one of: {}", name, where,
                               DidYouMean(name, allowed), fmt::join(allowed, ", ")));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> ReadScalar(const YAML::Node& node, std::string_view what) {
    HMO_RETURN_IF_ERROR(ExpectKind(node, YAML::NodeType::Scalar, what));
    HMO_RETURN_IF_ERROR(CheckQuotesClosed(node, what));
    return node.Scalar();
  }

  // yaml-cpp reads a quoted scalar left open (`- "memory-scheduler`) up to
  // the end of the document; a pipeline never needs a quoted scalar that
  // spans lines, so one whose line holds no closing quote is refused.
  absl::Status CheckQuotesClosed(const YAML::Node& node, std::string_view what) {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null() || mark.pos < 0 || static_cast<size_t>(mark.pos) >= source_.text.size()) {
      return absl::OkStatus();
    }
    const char quote = source_.text[mark.pos];
    if (quote != '"' && quote != '\'') return absl::OkStatus();
    const size_t line_end = std::min(source_.text.find('\n', mark.pos), source_.text.size());
    for (size_t at = mark.pos + 1; at < line_end; ++at) {
      if (quote == '"' && source_.text[at] == '\\') {
        ++at;
        continue;
      }
      if (source_.text[at] == quote) {
        // '' inside a single-quoted scalar is an escaped quote.
        if (quote == '\'' && at + 1 < line_end && source_.text[at + 1] == '\'') {
          ++at;
          continue;
        }
        return absl::OkStatus();
      }
    }
    return Error(node, {}, fmt::format("{} starts a quoted string that is not closed on its line", what));
  }

  absl::StatusOr<int64_t> ReadInt(const YAML::Node& node, std::string_view what) {
    HMO_ASSIGN_OR_RETURN(std::string text, ReadScalar(node, what));
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
      return Error(node, {}, fmt::format("{} must be an integer, got '{}'", what, text));
    }
    return value;
  }

  absl::StatusOr<std::vector<PipelineStepSpec>> ReadSteps(const YAML::Node& list,
                                                          std::string_view what,
                                                          SourcePosition key_position) {
    if (list.IsNull()) {
      return SourceError(source_, key_position, fmt::format("{} must list at least one pass", what));
    }
    HMO_RETURN_IF_ERROR(ExpectKind(list, YAML::NodeType::Sequence, what));
    // An alias (`*p`) to a list that holds it would nest without end.
    for (const YAML::Node& open : open_lists_) {
      if (open.is(list)) {
        return SourceError(source_, key_position,
                           fmt::format("{} is an alias of a list that contains it (a pipeline "
                                       "cannot contain itself)",
                                       what));
      }
    }
    if (static_cast<int64_t>(open_lists_.size()) > kMaxFixedPointNesting) {
      return Error(list, key_position,
                   fmt::format("{} nests fixed-point groups more than {} deep", what,
                               kMaxFixedPointNesting));
    }
    open_lists_.push_back(list);
    std::vector<PipelineStepSpec> steps;
    for (const YAML::Node& item : list) {
      absl::StatusOr<PipelineStepSpec> step = ReadStep(item);
      if (!step.ok()) {
        open_lists_.pop_back();
        return step.status();
      }
      steps.push_back(*std::move(step));
    }
    open_lists_.pop_back();
    if (steps.empty()) {
      return Error(list, key_position, fmt::format("{} must list at least one pass", what));
    }
    return steps;
  }

  // A step: `name`, `{pass: name, options: {...}}` or `{fixed-point: {...}}`.
  absl::StatusOr<PipelineStepSpec> ReadStep(const YAML::Node& item) {
    PipelineStepSpec step;
    if (item.IsScalar()) {
      HMO_RETURN_IF_ERROR(CheckQuotesClosed(item, "a pass name"));
      step.pass_name = item.Scalar();
      step.position = Position(item, {});
      return step;
    }
    if (!item.IsMap()) {
      return Error(item, {},
                   fmt::format("a pass entry is a pass name, 'pass: NAME' or 'fixed-point:', "
                               "got {}",
                               NodeKindName(item)));
    }
    if (item["fixed-point"]) {
      HMO_RETURN_IF_ERROR(CheckKeys(item, {"fixed-point"}, "in a fixed-point entry"));
      return ReadFixedPoint(item["fixed-point"], KeyPosition(item, "fixed-point"));
    }
    HMO_RETURN_IF_ERROR(CheckKeys(item, {"pass", "options"}, "in a pass entry"));
    const YAML::Node name = item["pass"];
    if (!name) {
      return Error(item, {}, "a pass entry needs 'pass: NAME' (or is a 'fixed-point:' group)");
    }
    HMO_ASSIGN_OR_RETURN(step.pass_name, ReadScalar(name, "'pass'"));
    step.position = Position(name, {});
    const YAML::Node options = item["options"];
    if (!options || options.IsNull()) return step;
    HMO_RETURN_IF_ERROR(ExpectKind(options, YAML::NodeType::Map, "'options'"));
    HMO_RETURN_IF_ERROR(CheckNoDuplicateKeys(options, "in 'options'"));
    for (auto it = options.begin(); it != options.end(); ++it) {
      PipelineOptionSpec option;
      HMO_ASSIGN_OR_RETURN(option.assignment.key, ReadScalar(it->first, "an option name"));
      option.key_position = Position(it->first, {});
      option.value_position = Position(it->second, option.key_position);
      const YAML::Node value = it->second;  // a handle; `*it` is a temporary
      if (value.IsSequence()) {
        std::vector<std::string> elements;
        for (const YAML::Node& element : value) {
          HMO_ASSIGN_OR_RETURN(std::string text,
                               ReadScalar(element, fmt::format("an element of option '{}'",
                                                               option.assignment.key)));
          elements.push_back(std::move(text));
        }
        option.assignment.value = std::move(elements);
      } else if (value.IsScalar()) {
        HMO_RETURN_IF_ERROR(CheckQuotesClosed(value, fmt::format("option '{}'", option.assignment.key)));
        option.assignment.value = value.Scalar();
      } else {
        return SourceError(source_, option.value_position,
                           fmt::format("option '{}' must be a scalar or a list, got {}",
                                       option.assignment.key, NodeKindName(value)));
      }
      step.options.push_back(std::move(option));
    }
    return step;
  }

  absl::StatusOr<PipelineStepSpec> ReadFixedPoint(const YAML::Node& group,
                                                   SourcePosition key_position) {
    PipelineStepSpec step;
    step.kind = PipelineStepSpec::Kind::kFixedPoint;
    step.position = key_position;
    step.max_iterations = kDefaultFixedPointIterations;
    if (!group.IsMap()) {
      return Error(group, key_position,
                   fmt::format("'fixed-point' must be a mapping with 'passes' (and optionally "
                               "'max-iterations'), got {}",
                               NodeKindName(group)));
    }
    HMO_RETURN_IF_ERROR(CheckKeys(group, {"max-iterations", "passes"}, "in 'fixed-point'"));
    if (const YAML::Node cap = group["max-iterations"]; cap) {
      HMO_ASSIGN_OR_RETURN(step.max_iterations, ReadInt(cap, "'max-iterations'"));
      if (step.max_iterations < 1) {
        return Error(cap, {}, fmt::format("'max-iterations' must be at least 1, got {}",
                                          step.max_iterations));
      }
    }
    const YAML::Node passes = group["passes"];
    if (!passes) return SourceError(source_, key_position, "'fixed-point' needs 'passes'");
    HMO_ASSIGN_OR_RETURN(step.steps,
                         ReadSteps(passes, "'fixed-point' 'passes'", KeyPosition(group, "passes")));
    return step;
  }

  SourceText source_;
  std::vector<YAML::Node> open_lists_;  // the pass lists being read, outermost first
};

}  // namespace

absl::StatusOr<PipelineSpec> ParsePipelineYaml(std::string_view text, std::string_view filename) {
  return YamlPipelineReader(SourceText{std::string(filename), std::string(text)}).Read();
}

absl::StatusOr<PipelineSpec> ParsePipelineYamlFile(const std::filesystem::path& path) {
  absl::StatusOr<std::string> contents = ReadInputFile(path.string());
  if (!contents.ok()) {
    if (absl::IsNotFound(contents.status())) {
      return absl::NotFoundError(fmt::format("{}: cannot read pipeline file", path.string()));
    }
    return contents.status();
  }
  return ParsePipelineYaml(*contents, path.string());
}

}  // namespace hmo
