#ifndef HMO_PLUGIN_PASS_ABI_H_
#define HMO_PLUGIN_PASS_ABI_H_

/* The C interface of a pass: HLO text in, HLO text out, typed options.
 *
 * This is the stable tier for passes (see plugin_abi.h), as
 * scheduler_strategy_abi.h is for strategies: a plugin that uses only the C
 * headers sets `build_fingerprint` to NULL, links nothing of hmo, may be built
 * by any C compiler (or a C++ one with another standard library and Abseil),
 * and keeps loading across hmo rebuilds while the ABI major version matches.
 * The header is C (C99 and later) and C++.
 *
 * Registering (ABI 1.3)
 * ---------------------
 * The plugin sets HmoPluginInfo.register_c_passes. That callback receives an
 * HmoCPassRegistrar and calls `registrar->register_pass(registrar, &pass,
 * message, message_capacity)` once per pass, returning any error it gets. The
 * host copies what it needs of the HmoCPass and its option declarations; the
 * strings, the declarations and `pass_data` must stay valid while the plugin
 * is loaded (for ever). A name already taken by any pass, C or C++, is refused,
 * naming both plugins. A C pass is then an ordinary pass: `hmo passes` lists it
 * with its options, pipelines name it, and its options are parsed and checked
 * by the host (with the position in the pipeline) before it runs.
 *
 * Running
 * -------
 * For each module, the host prints the module as HLO text (hmo's canonical
 * form with `%`-prefixed names: every name, of an instruction or of a
 * computation, is written `%name` wherever it appears outside a quoted string;
 * the schedule, when the module has one, is the instruction order), fills an
 * HmoPassRunRequest and calls `pass->run(pass->pass_data, &request)`. The pass
 * reads `request->module_text`; to change the module it hands the new text to
 * hmoSetPassResult() (the host copies it; a later call replaces an earlier
 * one) and returns kHmoOk. The host parses the result (short or long form),
 * verifies it, and replaces the module's contents with it; the module keeps its
 * name. A result equal to the input text, or no result, leaves the module as
 * it was and counts as "not changed". A result that does not parse or verify
 * is an error naming the pass and the place in its output.
 *
 * On failure the pass returns a non-zero code and explains it in
 * `request->message` (hmoSetMessage()). Everything the request points to is
 * owned by the host and valid only during the call. `run` may be called
 * concurrently from several threads (one per module), each with its own
 * request, so it must not keep mutable global state.
 *
 * Versioning: the structs with `struct_size` follow the rules of plugin_abi.h
 * (fields are only appended; check HMO_ABI_HAS_FIELD before reading a field of
 * a later minor version). HmoPassOptionValue is frozen: the host passes an
 * array of them, so it never grows; a new option type is a new
 * HmoPassOptionType value. */

#include "hmo/plugin/abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The type of a pass option. Values are part of the ABI and never change. */
typedef int32_t HmoPassOptionType;
enum {
  /* `true` / `false`. */
  kHmoPassOptionBool = 0,
  /* A signed 64-bit decimal integer. */
  kHmoPassOptionInt = 1,
  /* A decimal floating-point number. */
  kHmoPassOptionDouble = 2,
  /* Any text. */
  kHmoPassOptionString = 3,
  /* One of the declaration's `allowed_values`. */
  kHmoPassOptionEnum = 4,
  /* A list of texts: `[a, b]` in a pipeline. */
  kHmoPassOptionStringList = 5
};

/* Declares one option of a C pass. */
typedef struct HmoPassOptionDecl {
  size_t struct_size;
  /* kebab-case, unique within the pass. */
  const char* key;
  HmoPassOptionType type;
  /* The default, as it would be written in a pipeline: "true", "42", "0.5",
   * "text"; for a string list, its items separated by commas ("a,b"; "" is the
   * empty list). NULL makes the option required: every use of the pass must
   * give it. The host checks the default against the type at registration. */
  const char* default_value;
  /* One line for `hmo passes`. */
  const char* help;
  /* kHmoPassOptionEnum: the accepted values (at least one; the default must be
   * among them). Ignored for the other types. */
  const char* const* allowed_values;
  size_t allowed_value_count;
} HmoPassOptionDecl;

/* A C pass, as a plugin registers it. */
typedef struct HmoCPass HmoCPass;

/* One option value as the pass receives it, typed by the host. Exactly the
 * field of `type` is meaningful: `bool_value` (0 or 1), `int_value`,
 * `double_value`, `string_value` (kHmoPassOptionString and
 * kHmoPassOptionEnum; NUL-terminated), or `list_values` with `list_count`
 * NUL-terminated items. Frozen (see above). */
typedef struct HmoPassOptionValue {
  const char* key;
  HmoPassOptionType type;
  int32_t bool_value;
  int64_t int_value;
  double double_value;
  const char* string_value;
  const char* const* list_values;
  size_t list_count;
} HmoPassOptionValue;

/* One call of a C pass on one module. */
typedef struct HmoPassRunRequest {
  size_t struct_size;
  /* The pass's registered name, for messages. */
  const char* pass_name;
  /* The module as HLO text (see "Running"), NUL-terminated; its length in
   * bytes without the NUL. */
  const char* module_text;
  size_t module_text_length;
  /* Every declared option, in declaration order, with the value of this use
   * of the pass (the default where the pipeline gave none). */
  const HmoPassOptionValue* options;
  size_t option_count;
  /* Out: the explanation of a non-OK return, NUL-terminated. */
  char* message;
  size_t message_capacity;
  /* Hands the host the module's new text, `length` bytes (need not be
   * NUL-terminated); the host copies it. Returns kHmoOk. Call it through
   * hmoSetPassResult(). */
  HmoStatusCode (*set_result)(struct HmoPassRunRequest* request, const char* text, size_t length);
  /* The host's own state; passes must not touch it. */
  void* host_data;
} HmoPassRunRequest;

/* Runs the pass on request->module_text. `pass_data` is the pointer from the
 * pass's registration. */
typedef HmoStatusCode (*HmoRunPassFn)(const void* pass_data, HmoPassRunRequest* request);

struct HmoCPass {
  size_t struct_size;
  /* Unique kebab-case name, e.g. "prefix-names"; pipelines select it. */
  const char* name;
  /* One line for `hmo passes`. */
  const char* description;
  /* The option declarations, `option_count` pointers (each declaration
   * carries its own struct_size, so the array is one of pointers). */
  const HmoPassOptionDecl* const* options;
  size_t option_count;
  HmoRunPassFn run;
  /* Passed back unchanged to `run`; may be NULL. */
  const void* pass_data;
};

/* Handed to a plugin's register_c_passes callback; valid only during that
 * call. */
typedef struct HmoCPassRegistrar {
  size_t struct_size;
  /* Registers `pass`. Returns kHmoOk, or kHmoAlreadyExists /
   * kHmoInvalidArgument with an explanation in `message` (a malformed
   * declaration, a default that does not fit its type, a taken name). */
  HmoStatusCode (*register_pass)(struct HmoCPassRegistrar* registrar, const HmoCPass* pass,
                                 char* message, size_t message_capacity);
  /* The host's own state; plugins must not touch it. */
  void* host_data;
} HmoCPassRegistrar;

/* Hands the host `length` bytes of `text` as the module's new HLO text. */
static inline HmoStatusCode hmoSetPassResult(HmoPassRunRequest* request, const char* text,
                                             size_t length) {
  return request->set_result(request, text, length);
}

/* Returns the value of option `key` in `request`, or NULL when the pass
 * declared no such option. */
static inline const HmoPassOptionValue* hmoFindPassOption(const HmoPassRunRequest* request,
                                                          const char* key) {
  size_t i;
  for (i = 0; i < request->option_count; ++i) {
    if (hmoStringsEqual(request->options[i].key, key)) return &request->options[i];
  }
  return NULL;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HMO_PLUGIN_PASS_ABI_H_ */
