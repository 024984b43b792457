#include "hmo/plugin/plugin_registries.h"

#include "hmo/pass/pass_context.h"

namespace hmo {

const AnalysisRegistry& RegisteredAnalyses(const PluginRegistries& registries) {
  return registries.analyses;
}

}  // namespace hmo
