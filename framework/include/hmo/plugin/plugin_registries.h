#ifndef HMO_PLUGIN_PLUGIN_REGISTRIES_H_
#define HMO_PLUGIN_PLUGIN_REGISTRIES_H_

// Everything plugins (and the framework) can register, in one place: the
// registries a PluginHost fills and a pipeline reads. After loading is done
// they are only read, so any number of threads may share them.

#include "hmo/pass/analysis_registry.h"
#include "hmo/pass/pass_registry.h"
#include "hmo/plugin/backend.h"
#include "hmo/plugin/scheduler_strategy_registry.h"

namespace hmo {

struct PluginRegistries {
  PassRegistry passes;
  SchedulerStrategyRegistry strategies;
  BackendRegistry backends;
  AnalysisRegistry analyses;
};

}  // namespace hmo

#endif  // HMO_PLUGIN_PLUGIN_REGISTRIES_H_
