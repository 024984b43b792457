#ifndef HMO_PLUGIN_SCHEDULER_STRATEGY_ABI_H_
#define HMO_PLUGIN_SCHEDULER_STRATEGY_ABI_H_

/* The C interface of a scheduler strategy: a read-only view of one computation
 * in, an instruction order out.
 *
 * This is the stable tier of hmo's plugin ABI (see plugin_abi.h): a plugin that
 * uses only this header and plugin_abi.h sets `build_fingerprint` to NULL and
 * keeps working across hmo rebuilds. The built-in strategies register through
 * this same interface, but they are C++ plugins linking the framework, so they
 * carry the build fingerprint. The header is C (C99 and later) and C++.
 *
 * Registering
 * -----------
 * The plugin's `register_scheduler_strategies` callback receives an
 * HmoStrategyRegistrar and calls `registrar->register_strategy(registrar, &s,
 * message, message_capacity)` once per strategy, returning any error it gets.
 * The host copies the HmoSchedulerStrategy; the strings and `strategy_data` it
 * points to must stay valid while the plugin is loaded (for ever). A name
 * already registered by another plugin is refused, naming both plugins.
 *
 * Scheduling
 * ----------
 * For each computation to schedule, the host fills an HmoScheduleRequest and
 * calls `strategy->schedule(strategy->strategy_data, &request)`. The strategy
 * writes a permutation of the instruction ids into `request->order` (host-owned,
 * room for exactly `view->instruction_count` ids), sets `request->order_length`,
 * and returns kHmoOk. The host then checks the order: every id exactly once, each
 * instruction after its operands and its control predecessors. An invalid order
 * is an error that names the strategy. On failure the strategy returns a non-zero
 * code and explains it in `request->message` (hmoSetMessage()).
 *
 * Everything the request points to is owned by the host and valid only during
 * the call. `schedule` may run concurrently on several threads (one per module
 * being compiled), each with its own request, so it must not keep mutable
 * global state.
 *
 * Progress
 * --------
 * A strategy whose search can run longer than a second or two may report how
 * far it got with hmoReportProgress(request, done, total, detail) (ABI 1.2;
 * see HmoScheduleRequest.report_progress). The host shows it to a person
 * watching, or discards it; it changes nothing of the result.
 *
 * Versioning: the structs below follow the rules in plugin_abi.h and share its
 * HMO_PLUGIN_ABI_MAJOR / MINOR: each begins with `struct_size`, and new fields
 * are only appended. A reader must check `struct_size` before touching a field
 * added after ABI 1.0 (HMO_ABI_HAS_FIELD does that); fields are ABI 1.0 unless
 * marked otherwise. */

#include "hmo/plugin/abi_base.h"
#include "hmo/plugin/pass_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An instruction's index in HmoSchedulingView.instructions: 0 .. count-1. */
typedef uint32_t HmoInstructionId;

/* A value's index in HmoSchedulingView's value table: 0 .. value_count-1.
 * ABI 1.1. */
typedef uint32_t HmoValueId;

/* Stands for "no instruction of this computation". ABI 1.1. */
#define HMO_NO_INSTRUCTION ((HmoInstructionId)0xFFFFFFFFu)

/* Whether `ptr`, a struct of type `type` filled by the other side, is long
 * enough to hold `field` (a field appended in a later minor version). */
#define HMO_ABI_HAS_FIELD(ptr, type, field) \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((const type*)0)->field))

/* HmoSchedulingInstruction.flags bits. ABI 1.1. */
/* The instruction's shape is an array with exactly one element (f32[],
 * f32[1,1]); XLA's list scheduler clusters these. */
#define HMO_INSTRUCTION_EFFECTIVE_SCALAR 0x1u
/* An infeed with a non-empty infeed_config or an outfeed with a non-empty
 * outfeed_config; XLA's list scheduler schedules such outfeeds early and such
 * infeeds late. */
#define HMO_INSTRUCTION_HAS_FEED_CONFIG 0x2u

/* HmoSchedulingView.value_flags bits. ABI 1.1. */
/* The value is in the flattened value set of the root: it outlives the
 * computation. */
#define HMO_VALUE_LIVE_OUT 0x1u
/* The value's defining instruction, in this computation or outside it, is a
 * parameter or a constant. */
#define HMO_VALUE_DEFINED_BY_PARAMETER_OR_CONSTANT 0x2u
/* A parameter's value that the heap frees after its last use instead of
 * keeping it for the whole program: an entry parameter whose buffer is
 * donated to an output (input_output_alias). */
#define HMO_VALUE_FREED_AFTER_LAST_USE 0x4u
/* The value's buffer is an allocation of its own, outside the temporary arena
 * buffer assignment packs: its HloBuffer holds an entry parameter's value or
 * a value live out of the entry computation. Set only when the host asks for
 * orders that minimise the temporary arena (memory-scheduler
 * objective=device-bytes); a strategy counting live bytes may then leave such
 * a value out, since its bytes are paid whatever the order. Older strategies
 * ignore the bit. ABI 1.1 (a new bit, no new field). */
#define HMO_VALUE_OUTSIDE_TEMP_ARENA 0x8u

/* One instruction of the computation being scheduled. */
typedef struct HmoSchedulingInstruction {
  size_t struct_size;
  /* Equal to this instruction's index in the view. */
  HmoInstructionId id;
  /* The instruction's name and opcode as in HLO text ("add.3", "fusion"). */
  const char* name;
  const char* opcode;
  /* Data operands, in operand order (an id repeats when an operand is used
   * twice). */
  const HmoInstructionId* operand_ids;
  size_t operand_count;
  /* Distinct instructions that use this one as a data operand. */
  const HmoInstructionId* user_ids;
  size_t user_count;
  /* Control edges: this instruction must come after every control predecessor
   * and before every control successor. Besides the IR's control
   * dependencies they hold the orderings donation imposes in an entry
   * computation: every other reader of a donated parameter comes before the
   * producer of the output placed in its buffer. */
  const HmoInstructionId* control_predecessor_ids;
  size_t control_predecessor_count;
  const HmoInstructionId* control_successor_ids;
  size_t control_successor_count;
  /* The byte size of the value this instruction defines (its whole shape; for
   * a tuple, the tuple's own index table as the IR's ShapeUtil::ByteSizeOf
   * counts it). */
  uint64_t bytes_defined;
  /* Operands whose buffer this instruction's output may occupy (in-place
   * updates, bitcasts, get-tuple-element and the like), each at most once.
   * Empty means "no sharing is known", which is always a safe answer; the
   * host's dataflow analysis fills it where it can prove sharing possible. */
  const HmoInstructionId* may_share_operand_ids;
  size_t may_share_operand_count;
  /* Non-zero when the value outlives the computation: the root, and the
   * instructions the root tuple (transitively through nested root tuples)
   * forwards. */
  int32_t is_live_out;

  /* ABI 1.1: the instruction in terms of HloValues (the view's value table),
   * the units XLA's schedulers count. A tuple defines only its own index
   * table; get-tuple-element and bitcast define nothing and forward their
   * operand's values; so do parameters of called computations. */
  /* The values this instruction defines, each once. */
  const HmoValueId* defined_value_ids;
  size_t defined_value_count;
  /* The values it reads: the union over its distinct operands of every value
   * that may appear at any index of the operand (a get-tuple-element reads
   * every value of its tuple operand), each once. */
  const HmoValueId* used_value_ids;
  size_t used_value_count;
  /* HMO_INSTRUCTION_* bits. */
  uint32_t flags;
  /* Bytes the instruction needs during its own step beyond its inputs and
   * outputs: an estimate of what the computations it calls (while body and
   * condition, called computation, conditional branches) keep live at their
   * peak. Zero when unknown. */
  uint64_t transient_bytes;
} HmoSchedulingInstruction;

/* A read-only view of one computation. */
typedef struct HmoSchedulingView {
  size_t struct_size;
  /* The computation's and its module's names, for messages. */
  const char* computation_name;
  const char* module_name;
  /* instructions[i]->id == i. */
  size_t instruction_count;
  const HmoSchedulingInstruction* const* instructions;
  /* The id of the computation's root instruction. */
  HmoInstructionId root_id;

  /* ABI 1.1: the value table. Every value an instruction of the computation
   * defines or uses, or that is live out, once; the arrays have value_count
   * entries each. */
  size_t value_count;
  /* The value's size in bytes (the host's size function: ShapeUtil::ByteSizeOf
   * with 8-byte pointers unless configured otherwise). */
  const uint64_t* value_sizes;
  /* The instruction defining the value, or HMO_NO_INSTRUCTION for a value
   * defined outside this computation (one that reaches it through a parameter
   * of a called computation). */
  const HmoInstructionId* value_defining_instruction_ids;
  /* HMO_VALUE_* bits. */
  const uint32_t* value_flags;
} HmoSchedulingView;

/* One option given to the strategy, as text. This pair is frozen: it never
 * grows, so it carries no struct_size. */
typedef struct HmoStrategyOption {
  const char* key;
  const char* value;
} HmoStrategyOption;

/* One call of a strategy: the view and options in, the order and a message out. */
typedef struct HmoScheduleRequest {
  size_t struct_size;
  const HmoSchedulingView* view;
  const HmoStrategyOption* options;
  size_t option_count;
  /* Out: the instruction order. Room for view->instruction_count ids. */
  HmoInstructionId* order;
  /* Out: how many ids the strategy wrote into `order`. */
  size_t order_length;
  /* Out: the explanation of a non-OK return, NUL-terminated. */
  char* message;
  size_t message_capacity;

  /* ABI 1.2: where a strategy whose search can run longer than a second or
   * two reports its progress, for a person watching (the hmo tool draws one
   * line on a terminal; nothing when stderr is not one, or under -q).
   * `report_progress` is NULL when nobody listens; a strategy calls it
   * through hmoReportProgress() (below), which checks struct_size first,
   * from the thread running `schedule` and only during the call. Arguments:
   * `progress_data` as given here; `done` of `total` steps of the search
   * (e.g. nodes explored of the strategy's node budget; `total` 0 when not
   * known), never decreasing within one call of `schedule`; `detail`, a
   * NUL-terminated line (e.g. "best peak 123456 B"), which the host copies,
   * or NULL. The host rate-limits what it shows, but a call formats text and
   * takes a lock: call it every thousand steps or so, not on every one.
   * Reporting changes nothing of the result, and a strategy that never
   * reports is as valid. */
  void (*report_progress)(void* progress_data, uint64_t done, uint64_t total, const char* detail);
  void* progress_data;
} HmoScheduleRequest;

/* Computes an order for request->view. `strategy_data` is the pointer from the
 * strategy's registration. */
typedef HmoStatusCode (*HmoScheduleFn)(const void* strategy_data, HmoScheduleRequest* request);

/* A scheduler strategy, as a plugin registers it. */
typedef struct HmoSchedulerStrategy {
  size_t struct_size;
  /* Unique kebab-case name, e.g. "reverse-post-order"; pipelines select it. */
  const char* name;
  /* One line for `hmo plugins`. */
  const char* description;
  HmoScheduleFn schedule;
  /* Passed back unchanged to `schedule`; may be NULL. */
  const void* strategy_data;

  /* ABI 1.3: the options the strategy reads, declared as a C pass declares
   * its own (HmoPassOptionDecl, pass_abi.h), `option_count` pointers. With
   * `options` non-NULL (even with option_count 0: "takes no options") the
   * host checks every option a pipeline forwards to the strategy (memory-
   * scheduler's strategy-options) against the declarations before any
   * scheduling: a key not declared, a value of the wrong type or not among
   * an enum's values is an error naming the strategy. The request then holds
   * every declared option, in declaration order, as text (the default where
   * none was forwarded; a list as "[a,b]"), and `hmo passes` lists them.
   * With `options` NULL the strategy declares nothing, and receives what the
   * pipeline forwards, unchecked. */
  const HmoPassOptionDecl* const* options;
  size_t option_count;
} HmoSchedulerStrategy;

/* Handed to a plugin's register_scheduler_strategies callback; valid only
 * during that call. */
typedef struct HmoStrategyRegistrar {
  size_t struct_size;
  /* Registers `strategy` (copied). Returns kHmoOk, or kHmoAlreadyExists /
   * kHmoInvalidArgument with an explanation in `message`. */
  HmoStatusCode (*register_strategy)(struct HmoStrategyRegistrar* registrar,
                                     const HmoSchedulerStrategy* strategy, char* message,
                                     size_t message_capacity);
  /* The host's own state; plugins must not touch it. */
  void* host_data;
} HmoStrategyRegistrar;

/* Returns the value of option `key` in `request`, or NULL when not given. */
static inline const char* hmoFindStrategyOption(const HmoScheduleRequest* request,
                                                const char* key) {
  size_t i;
  for (i = 0; i < request->option_count; ++i) {
    if (hmoStringsEqual(request->options[i].key, key)) return request->options[i].value;
  }
  return NULL;
}

/* Whether the host listens to `request`'s progress (ABI 1.2): its request
 * has the progress fields and a callback. A strategy may skip formatting its
 * detail when it does not. */
static inline int hmoWantsProgress(const HmoScheduleRequest* request) {
  return HMO_ABI_HAS_FIELD(request, HmoScheduleRequest, progress_data) &&
         request->report_progress != NULL;
}

/* Reports `done` of `total` steps and `detail` (may be NULL) through
 * request->report_progress when the host listens (ABI 1.2); does nothing
 * for a host of an earlier minor version, whose request is shorter. */
static inline void hmoReportProgress(const HmoScheduleRequest* request, uint64_t done,
                                     uint64_t total, const char* detail) {
  if (hmoWantsProgress(request)) {
    request->report_progress(request->progress_data, done, total, detail);
  }
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* HMO_PLUGIN_SCHEDULER_STRATEGY_ABI_H_ */
