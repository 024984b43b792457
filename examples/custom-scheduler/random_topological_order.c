/* random-topological-order: a scheduler strategy that picks, at every step,
 * a uniformly random instruction among those whose operands and control
 * predecessors are already scheduled. Any seed gives a valid order; the same
 * seed gives the same order. Useful as a baseline for the memory scheduler
 * and for fuzzing passes that must accept any schedule.
 *
 * Options:
 *   seed  a non-negative integer (default 1)
 *
 * Uses only the C plugin ABI (plugin_abi.h, scheduler_strategy_abi.h). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/scheduler_strategy_abi.h"

/* splitmix64: a small, well-mixed generator; state is the seed. */
static uint64_t NextRandom(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static HmoStatusCode ParseSeed(const HmoScheduleRequest* request, uint64_t* seed) {
  const char* text = hmoFindStrategyOption(request, "seed");
  char* end = NULL;
  size_t i;
  *seed = 1;
  for (i = 0; i < request->option_count; ++i) {
    const char* key = request->options[i].key;
    if (strcmp(key, "seed") != 0) {
      char message[256];
      snprintf(message, sizeof(message), "unknown option '%s' (random-topological-order takes 'seed')",
               key);
      return hmoSetMessage(kHmoInvalidArgument, message, request->message,
                           request->message_capacity);
    }
  }
  if (text == NULL) return kHmoOk;
  *seed = strtoull(text, &end, 10);
  if (text[0] == '\0' || text[0] == '-' || *end != '\0') {
    return hmoSetMessage(kHmoInvalidArgument, "option 'seed' must be a non-negative integer",
                         request->message, request->message_capacity);
  }
  return kHmoOk;
}

static HmoStatusCode RandomTopologicalOrder(const void* data, HmoScheduleRequest* request) {
  const HmoSchedulingView* view = request->view;
  const size_t n = view->instruction_count;
  size_t* waiting = NULL;  /* per instruction: predecessor edges not yet scheduled */
  size_t* successor_start = NULL;
  HmoInstructionId* successors = NULL;
  HmoInstructionId* ready = NULL;
  size_t edges = 0, ready_count = 0, scheduled = 0, i, k;
  uint64_t state;
  HmoStatusCode code = ParseSeed(request, &state);
  (void)data;
  if (code != kHmoOk) return code;

  /* Successor lists built from the predecessor lists, one entry per edge
   * (an operand used twice is two edges), so the counts always match. */
  for (i = 0; i < n; ++i) {
    edges += view->instructions[i]->operand_count + view->instructions[i]->control_predecessor_count;
  }
  waiting = calloc(n + 1, sizeof(size_t));
  successor_start = calloc(n + 2, sizeof(size_t));
  successors = malloc((edges + 1) * sizeof(HmoInstructionId));
  ready = malloc((n + 1) * sizeof(HmoInstructionId));
  if (waiting == NULL || successor_start == NULL || successors == NULL || ready == NULL) {
    code = hmoSetMessage(kHmoInternal, "out of memory", request->message,
                         request->message_capacity);
    goto done;
  }
  for (i = 0; i < n; ++i) {
    const HmoSchedulingInstruction* instruction = view->instructions[i];
    for (k = 0; k < instruction->operand_count; ++k) ++successor_start[instruction->operand_ids[k] + 2];
    for (k = 0; k < instruction->control_predecessor_count; ++k) {
      ++successor_start[instruction->control_predecessor_ids[k] + 2];
    }
    waiting[i] = instruction->operand_count + instruction->control_predecessor_count;
  }
  for (i = 2; i < n + 2; ++i) successor_start[i] += successor_start[i - 1];
  for (i = 0; i < n; ++i) {
    const HmoSchedulingInstruction* instruction = view->instructions[i];
    for (k = 0; k < instruction->operand_count; ++k) {
      successors[successor_start[instruction->operand_ids[k] + 1]++] = (HmoInstructionId)i;
    }
    for (k = 0; k < instruction->control_predecessor_count; ++k) {
      successors[successor_start[instruction->control_predecessor_ids[k] + 1]++] =
          (HmoInstructionId)i;
    }
  }
  /* Now successors of x are successors[successor_start[x] .. successor_start[x+1]). */

  for (i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready[ready_count++] = (HmoInstructionId)i;
  }
  while (ready_count > 0) {
    const size_t pick = (size_t)(NextRandom(&state) % ready_count);
    const HmoInstructionId chosen = ready[pick];
    ready[pick] = ready[--ready_count];
    request->order[scheduled++] = chosen;
    for (k = successor_start[chosen]; k < successor_start[chosen + 1]; ++k) {
      if (--waiting[successors[k]] == 0) ready[ready_count++] = successors[k];
    }
  }
  request->order_length = scheduled;
  if (scheduled != n) {
    code = hmoSetMessage(kHmoFailedPrecondition,
                         "the computation has a cycle through data and control edges",
                         request->message, request->message_capacity);
  }

done:
  free(waiting);
  free(successor_start);
  free(successors);
  free(ready);
  return code;
}

/* Declared (ABI 1.3), so that the host checks what a pipeline forwards and
 * `hmo passes` lists it; ParseSeed still checks, for a host of ABI 1.2. */
static const HmoPassOptionDecl kSeed = {sizeof(HmoPassOptionDecl),
                                        "seed",
                                        kHmoPassOptionInt,
                                        "1",
                                        "the generator's seed: the same seed, the same order",
                                        NULL,
                                        0};
static const HmoPassOptionDecl* const kOptions[] = {&kSeed};

static const HmoSchedulerStrategy kRandomTopologicalOrder = {
    sizeof(HmoSchedulerStrategy),
    "random-topological-order",
    "a random topological order, reproducible by its 'seed' option",
    RandomTopologicalOrder,
    NULL,
    kOptions,
    1};

static HmoStatusCode RegisterStrategies(HmoStrategyRegistrar* registrar, char* message,
                                        size_t capacity) {
  return registrar->register_strategy(registrar, &kRandomTopologicalOrder, message, capacity);
}

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = {
      sizeof(HmoPluginInfo),
      HMO_PLUGIN_ABI_MAJOR,
      HMO_PLUGIN_ABI_MINOR,
      "custom-scheduler",
      "1.0.0",
      NULL, /* a C plugin: no build fingerprint, works across hmo rebuilds */
      NULL, /* register_passes */
      RegisterStrategies,
      NULL, /* register_backends */
      NULL, /* register_analyses */
      NULL, /* register_c_passes */
  };
  return &info;
}
