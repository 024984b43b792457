#ifndef HMO_PLUGIN_BACKEND_H_
#define HMO_PLUGIN_BACKEND_H_

// A compilation target as memory optimization sees it, provided by a backend
// plugin (backends/cpu, backends/gpu) and selected by name: a pipeline's
// `target:`, `hmo run --target` / `--backend`, `hmo stats --target`. Backend objects are immutable
// descriptions, shared by every thread.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/plugin/executable.h"
#include "hmo/pass/named_registry.h"

namespace hmo {

class HloModule;

struct CompileOptions {
  // LLVM optimization level (0-3).
  int opt_level = 2;
  // Print the generated LLVM IR to this file when not empty.
  std::string dump_ir_to;
  // Replicas the executable runs together (Executable::ExecuteReplicated);
  // collectives span them.
  int64_t num_replicas = 1;
  // Threads an executable may run one kernel's independent iterations on
  // (the CPU backend's partitioned kernels), the calling one included, and
  // the CPU backend compiles the module's parts on; 0: the machine's
  // hardware threads.
  int64_t threads = 0;
  // Whether kernels that touch no common byte may run at the same time (the
  // CPU backend); false: every kernel in schedule order, one at a time.
  bool concurrent_kernels = true;
};

// Nominal sustained rates of a target, for passes that weigh recomputing a
// value against keeping it in host memory (the `fit` pass): what a FLOP, a
// byte written to device memory and a byte moved between device and host
// memory (S(5)) cost in time. Descriptions, not measurements.
struct BackendCostRates {
  double flops_per_second = 1e11;
  double device_memory_bytes_per_second = 1e11;
  double host_transfer_bytes_per_second = 1e10;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Returns the backend's kebab-case name ("cpu", "gpu").
  virtual std::string_view name() const = 0;

  // The target's memory model (hmo/analysis/target_memory_model.h): how
  // buffers are sized, aligned and packed, the preparation its compiler
  // applies and how its executable lays arenas out. Every memory measure of a
  // pipeline that targets this backend uses it, and an executing backend's
  // Compile plans with exactly this model (PlanTargetMemory), so that the
  // arenas it allocates are the bytes the pipeline measured.
  virtual TargetMemoryModel MemoryModel() const = 0;

  // The target's cost rates (the defaults: a FLOP and a byte written cost
  // alike, a byte to or from host memory ten times more).
  virtual BackendCostRates CostRates() const { return {}; }

  // Whether Compile is implemented (an executing backend, not only a
  // description of a target).
  virtual bool CanExecute() const { return false; }

  // Compiles `module` (verified; scheduled when it has a schedule, else the
  // backend schedules it) into an executable. `module` must outlive the
  // executable. The default returns Unimplemented.
  virtual absl::StatusOr<std::unique_ptr<Executable>> Compile(const HloModule& module,
                                                              const CompileOptions& options) const {
    (void)module;
    (void)options;
    return absl::UnimplementedError("backend '" + std::string(name()) + "' cannot execute modules");
  }
};

struct BackendRegistration {
  std::string name;  // equals backend->name()
  std::string description;
  std::shared_ptr<const Backend> backend;
};

using RegisteredBackend = Registered<BackendRegistration>;

class BackendRegistry {
 public:
  // Adds `registration` from `plugin`. Returns InvalidArgument for a bad name,
  // a null backend or a name that differs from backend->name(); AlreadyExists
  // naming both plugins when the name is taken.
  absl::Status Register(BackendRegistration registration, std::string_view plugin);

  // Returns the backend called `name`, or null.
  const RegisteredBackend* Find(std::string_view name) const { return backends_.Find(name); }
  // Returns every backend, sorted by name.
  std::vector<const RegisteredBackend*> List() const { return backends_.List(); }
  // Returns every backend name, sorted.
  std::vector<std::string> Names() const { return backends_.Names(); }

  // Removes what `plugin` registered (PluginHost, when the plugin fails to load).
  void RemoveProvidedBy(std::string_view plugin) { backends_.RemoveProvidedBy(plugin); }

 private:
  NamedRegistry<BackendRegistration> backends_{"backend"};
};

}  // namespace hmo

#endif  // HMO_PLUGIN_BACKEND_H_
