#ifndef HMO_TESTS_FUZZ_SEMANTIC_FUZZ_ENVIRONMENT_H_
#define HMO_TESTS_FUZZ_SEMANTIC_FUZZ_ENVIRONMENT_H_

// What the semantic fuzz targets share: the build's plugins (passes,
// strategies, backends), loaded once per process, and the input rule.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "hmo/ir/hlo_module.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/plugin/plugin_host.h"

namespace hmo::fuzz {

// The plugin host with the framework's passes and every plugin of the
// build's plugin folder loaded, as `hmo run` has them.
const PluginHost& SemanticFuzzPlugins();

// The shipped pipeline `file` (pipelines/*.yaml), resolved against the
// loaded passes, measuring with `target`'s memory model (when loaded); a
// pipeline that does not parse or resolve aborts the target.
ResolvedPipeline ShippedPipeline(const std::filesystem::path& file, std::string_view target);

// The modules of `data` that parse and verify and are small enough to run
// many times a second (at most `max_elements` array elements in any
// instruction); empty for anything else.
std::vector<std::unique_ptr<HloModule>> VerifiedSmallModules(const uint8_t* data, size_t size,
                                                             int64_t max_elements);

}  // namespace hmo::fuzz

#endif  // HMO_TESTS_FUZZ_SEMANTIC_FUZZ_ENVIRONMENT_H_
