#ifndef HMO_PIPELINE_PIPELINE_SPEC_H_
#define HMO_PIPELINE_PIPELINE_SPEC_H_

// A pipeline as written, in either form (YAML file or one-line --passes
// string), before pass names and options are checked against the loaded
// plugins. Every element keeps its source position for error messages.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hmo/pass/pass_option_schema.h"
#include "hmo/pipeline/source_diagnostic.h"

namespace hmo {

// The pipeline schema version this hmo reads.
inline constexpr int kPipelineSchemaVersion = 1;

// When the pass manager runs the verifier.
enum class VerifyMode {
  kNever,    // on the input only (malformed input is always refused)
  kChanged,  // on the input, and after each pass that changed the module
  kAlways,   // on the input, and after every pass
};

// Returns "never", "changed" or "always".
std::string_view VerifyModeName(VerifyMode mode);

// What to dump while the pipeline runs.
struct DumpSettings {
  std::string directory;        // empty: no dumping
  std::string after = ".*";     // regex (ECMAScript) matched against the whole pass name
};

// `key = value` of one pass option, with where each half was written.
struct PipelineOptionSpec {
  PassOptionAssignment assignment;
  SourcePosition key_position;
  SourcePosition value_position;
};

// One step: a pass with options, or a fixed-point group of steps.
struct PipelineStepSpec {
  enum class Kind { kPass, kFixedPoint };
  Kind kind = Kind::kPass;
  SourcePosition position;  // the pass name, or the fixed-point keyword

  // kPass
  std::string pass_name;
  std::vector<PipelineOptionSpec> options;

  // kFixedPoint: run `steps` until none changes the module, at most
  // `max_iterations` times.
  int64_t max_iterations = 0;
  std::vector<PipelineStepSpec> steps;
};

// The default iteration cap of a fixed-point group.
inline constexpr int64_t kDefaultFixedPointIterations = 25;
// How deep fixed-point groups may nest: each level multiplies the pass runs
// by its iteration cap, so both pipeline parsers refuse a third level.
inline constexpr int64_t kMaxFixedPointNesting = 2;
// The default bound on pass runs in one module run (`max-pass-runs:`): a
// pipeline whose fixed-point groups do not converge stops with an error
// instead of running for hours.
inline constexpr int64_t kDefaultMaxPassRuns = 2000;

// A plugin the pipeline asks to load: a name or a path (relative paths are
// relative to the pipeline file's directory).
struct PluginReferenceSpec {
  std::string reference;
  SourcePosition position;
};

struct PipelineSpec {
  SourceText source;
  int version = kPipelineSchemaVersion;
  std::vector<PluginReferenceSpec> plugins;
  std::vector<PipelineStepSpec> steps;
  VerifyMode verify = VerifyMode::kChanged;
  DumpSettings dump;
  SourcePosition dump_after_position;  // where dump.after was written, if it was
  // `memory-limit:` (bytes; hmo/analysis/byte_size.h): the device bytes the
  // module may need after the pipeline (hmo/analysis/memory_limit.h).
  std::optional<int64_t> memory_limit;
  SourcePosition memory_limit_position;
  // `target:` the backend whose memory model every memory measure of the
  // pipeline uses (hmo/analysis/target_memory_model.h); empty: the backend
  // that runs the module, else the host's CPU.
  std::string target;
  SourcePosition target_position;
  // `max-pass-runs:` at most this many pass runs per module (>= 1).
  int64_t max_pass_runs = kDefaultMaxPassRuns;
};

}  // namespace hmo

#endif  // HMO_PIPELINE_PIPELINE_SPEC_H_
