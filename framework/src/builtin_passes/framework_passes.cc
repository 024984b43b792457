#include "hmo/builtin_passes/framework_passes.h"

#include "hmo/base/status_macros.h"
#include "hmo/builtin_passes/memory_report_pass.h"
#include "hmo/rewrites/copy_insertion.h"

namespace hmo {

absl::Status RegisterFrameworkPasses(PassRegistry& registry) {
  HMO_RETURN_IF_ERROR(registry.Register(MakePassRegistration<MemoryReportPass>(), "hmo"));
  return registry.Register(MakePassRegistration<CopyInsertion>(), "hmo");
}

}  // namespace hmo
