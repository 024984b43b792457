#ifndef HMO_PLUGIN_EXECUTABLE_H_
#define HMO_PLUGIN_EXECUTABLE_H_

// A compiled module a backend can run (XLA's Executable): produced by
// Backend::Compile from a scheduled module and its buffer assignment, run any
// number of times on argument literals. Memory is laid out as the target's
// plan says (PlanTargetMemory, hmo/analysis/target_memory_model.h): a device
// and a host arena, each allocation at an aligned offset inside its arena.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/literal.h"

namespace hmo {

class HloModule;

// What compilation produced, for `hmo run --execute` and benchmarks.
struct ExecutableStats {
  // Bytes of the JIT sections (code, read-only data incl. constants,
  // read-write data), as the memory manager laid them out.
  int64_t code_bytes = 0;
  int64_t rodata_bytes = 0;
  int64_t rwdata_bytes = 0;
  // The arenas the executable allocates: ArenaLayout::arena_bytes of its
  // plan (arena 0: device memory, every space but S(5); arena 5: host).
  std::map<int64_t, int64_t> arena_bytes;
  // The device arenas' bytes: what a device memory limit bounds.
  int64_t DeviceArenaBytes() const {
    int64_t bytes = 0;
    for (const auto& [arena, size] : arena_bytes) {
      if (arena != Layout::kHostMemorySpace) bytes += size;
    }
    return bytes;
  }
  // Wall time of code generation + JIT compilation, in seconds.
  double compile_seconds = 0;
  // Number of kernels emitted (one per non-trivial instruction / fusion).
  int64_t kernel_count = 0;
};

// What one Execute call measured.
struct ExecutionProfile {
  // Seconds of the device's run as the backend measures it (the CPU
  // backend: the module's code alone, without copying the arguments in and
  // the results out; the GPU backend: with its host transfers); 0 when the
  // backend does not measure it.
  double run_seconds = 0;
  // Bytes the arenas occupy (sum over colors).
  int64_t arena_bytes = 0;
  // Peak resident set size of the process (VmHWM) growth over the run, in
  // bytes; -1 when the OS does not report it.
  int64_t peak_rss_growth_bytes = -1;
  // Accelerator memory the executable held during the run, as the device
  // reports it (e.g. CUDA's used-memory growth since before its first
  // allocation); -1 for host backends or when unknown.
  int64_t device_peak_bytes = -1;
  // What each stream (queue) of an accelerator did, when the backend records
  // it: one span per operation, times in seconds from the run's start. Lets
  // a user see copies overlap compute.
  struct StreamSpan {
    std::string stream;  // "compute", "copy", ...
    std::string label;   // the instruction or operation
    double start_seconds = 0;
    double end_seconds = 0;
  };
  std::vector<StreamSpan> timeline;
};

class Executable {
 public:
  virtual ~Executable() = default;

  // Runs the entry computation on `arguments` (one literal per entry
  // parameter, shapes equal to the parameters' ignoring layout; literals are
  // row-major, the executable converts to and from the buffers' layouts).
  // Returns the entry result (a tuple literal when the root is a tuple).
  // `profile` may be null.
  virtual absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments,
                                          ExecutionProfile* profile) = 0;

  // Runs the module as N = arguments_per_replica.size() replicas together
  // (one argument list each; collectives exchange data across them) and
  // returns each replica's result. `profiles`, when not null, gets one
  // profile per replica. The default runs one replica through Execute and
  // is UNIMPLEMENTED for more (the backend cannot run replicas).
  virtual absl::StatusOr<std::vector<Literal>> ExecuteReplicated(
      const std::vector<std::vector<Literal>>& arguments_per_replica,
      std::vector<ExecutionProfile>* profiles);

  virtual const ExecutableStats& stats() const = 0;

  // The trip budget of every while loop in later Execute calls: one
  // execution of a loop that runs its body more than `trips` times stops the
  // run with LoopTripBudgetExceeded naming the loop
  // (hmo/base/loop_trip_budget.h), as the evaluator does; -1 (the default,
  // XLA's behaviour): no budget.
  void set_max_loop_trips(int64_t trips) { max_loop_trips_ = trips; }
  int64_t max_loop_trips() const { return max_loop_trips_; }

 private:
  int64_t max_loop_trips_ = -1;
};

}  // namespace hmo

#endif  // HMO_PLUGIN_EXECUTABLE_H_
