#ifndef HMO_PASS_PASS_CONTEXT_H_
#define HMO_PASS_PASS_CONTEXT_H_

// What a running pass may use besides its module: the module's analyses, the
// registries of loaded plugins (scheduler strategies, backends), the state the
// passes of its pipeline run share, and where it declares which analyses its
// changes leave valid.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hmo/analysis/target_memory_model.h"
#include "hmo/base/progress_sink.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pipeline_run_state.h"
#include "hmo/pass/preserved_analyses.h"

namespace hmo {

// The registries of everything loaded: passes, analyses, scheduler strategies,
// backends. Defined by the plugin layer (hmo/plugin/plugin_registries.h), which
// a pass includes to look a strategy or backend up; the pass layer only holds
// it by reference and hands it on (it calls nothing of it: the layer is above).
struct PluginRegistries;

class PassContext {
 public:
  // All must outlive the context. Without `run_state` (a pass run outside a
  // pipeline, as in tests), the context keeps its own, for this pass alone.
  PassContext(AnalysisManager& analyses, const PluginRegistries& registries,
              PipelineRunState* run_state = nullptr)
      : analyses_(analyses),
        registries_(registries),
        own_run_state_(run_state == nullptr ? std::make_unique<PipelineRunState>() : nullptr),
        run_state_(run_state == nullptr ? own_run_state_.get() : run_state) {}

  // The module's analyses, computed on demand and cached.
  AnalysisManager& analyses() { return analyses_; }

  // The loaded plugins' scheduler strategies, backends, passes and analyses.
  const PluginRegistries& registries() const { return registries_; }

  // What the passes of this pipeline run on this module share.
  PipelineRunState& run_state() { return *run_state_; }

  // The device memory limit of the pipeline run, in bytes (`memory-limit:`
  // or `hmo run --memory-limit`), when it has one: the figure of
  // hmo/analysis/memory_limit.h the module must fit after the pipeline.
  // Passes that trade time for memory (rematerialization) work towards it.
  const std::optional<int64_t>& memory_limit() const { return memory_limit_; }
  void set_memory_limit(std::optional<int64_t> limit) { memory_limit_ = limit; }

  // The memory model of the pipeline's target (`target:`,
  // hmo/analysis/target_memory_model.h): what every pass that measures device
  // bytes measures with, so that its figure is the limit check's and the
  // executable's. The model of no target (alignment 1, hmo's best packing,
  // no preparation) when none was set.
  const TargetMemoryModel& target_memory_model() const {
    return target_memory_model_ != nullptr ? *target_memory_model_ : NoTargetModel();
  }
  // `model` must outlive the context; null: the model of no target.
  void set_target_memory_model(const TargetMemoryModel* model) { target_memory_model_ = model; }

  // Where a pass that can run long reports its progress (progress_sink.h);
  // null when nobody watches. It must outlive the context.
  ProgressSink* progress() const { return progress_; }
  void set_progress(ProgressSink* progress) { progress_ = progress; }

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
  std::unique_ptr<PipelineRunState> own_run_state_;
  PipelineRunState* run_state_;
  PreservedAnalyses preserved_;
  std::optional<int64_t> memory_limit_;
  const TargetMemoryModel* target_memory_model_ = nullptr;
  ProgressSink* progress_ = nullptr;
  std::string report_;

  static const TargetMemoryModel& NoTargetModel() {
    static const TargetMemoryModel* const model = new TargetMemoryModel();
    return *model;
  }
};

}  // namespace hmo

#endif  // HMO_PASS_PASS_CONTEXT_H_
