#ifndef HMO_BUILTIN_PASSES_FRAMEWORK_PASSES_H_
#define HMO_BUILTIN_PASSES_FRAMEWORK_PASSES_H_

// The passes the framework itself provides, as the hmo binary registers them
// before loading plugins: memory-report (memory_report_pass.h) and
// copy-insertion (rewrites/copy_insertion.h).

#include "absl/status/status.h"
#include "hmo/pass/pass_registry.h"

namespace hmo {

// Registers them under the plugin name "hmo". Call once per registry, before
// loading plugins (a plugin may not take their names).
absl::Status RegisterFrameworkPasses(PassRegistry& registry);

}  // namespace hmo

#endif  // HMO_BUILTIN_PASSES_FRAMEWORK_PASSES_H_
