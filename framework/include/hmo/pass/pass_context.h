#ifndef HMO_PASS_PASS_CONTEXT_H_
#define HMO_PASS_PASS_CONTEXT_H_

// What a running pass may use besides its module: the module's analyses and
// the registries of loaded plugins (scheduler strategies, backends), and where
// it declares which analyses its changes leave valid.

#include <string>
#include <string_view>

#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/preserved_analyses.h"
#include "hmo/plugin/plugin_registries.h"

namespace hmo {

class PassContext {
 public:
  // Both must outlive the context.
  PassContext(AnalysisManager& analyses, const PluginRegistries& registries)
      : analyses_(analyses), registries_(registries) {}

  // The module's analyses, computed on demand and cached.
  AnalysisManager& analyses() { return analyses_; }

  // The loaded plugins' scheduler strategies, backends, passes and analyses.
  const PluginRegistries& registries() const { return registries_; }

  // Declares that analysis `A` stays valid although the pass changed the
  // module. Without this, every cached analysis is dropped after a change.
  template <typename A>
  void PreserveAnalysis() {
    preserved_.Preserve<A>();
  }
  // Declares that every analysis stays valid.
  void PreserveAllAnalyses() { preserved_.PreserveAll(); }

  // What the pass declared preserved so far.
  const PreservedAnalyses& preserved() const { return preserved_; }

  // Appends human-readable metrics of this run (e.g. each scheduler
  // candidate's peak and which one was chosen). The pass manager keeps them
  // in the run's PassRunRecord; `hmo run --report` prints them.
  void Report(std::string_view text) {
    if (!report_.empty() && report_.back() != '\n') report_ += '\n';
    report_ += text;
  }
  const std::string& report() const { return report_; }

 private:
  AnalysisManager& analyses_;
  const PluginRegistries& registries_;
  PreservedAnalyses preserved_;
  std::string report_;
};

}  // namespace hmo

#endif  // HMO_PASS_PASS_CONTEXT_H_
