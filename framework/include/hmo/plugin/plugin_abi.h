#ifndef HMO_PLUGIN_PLUGIN_ABI_H_
#define HMO_PLUGIN_PLUGIN_ABI_H_

/* The hmo plugin ABI: the one entry point every plugin shared object exports
 * and the self-describing struct it returns.
 *
 * A plugin exports exactly one unmangled symbol:
 *
 *     HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void);
 *
 * The host calls it once, right after loading the shared object, checks the
 * returned struct (below), then calls each non-NULL registration callback once,
 * in struct order. The struct and every string it points to must stay valid
 * while the plugin is loaded; the host keeps plugins loaded for the life of
 * the process, so static storage is the natural choice.
 *
 * Two tiers of plugin
 * -------------------
 * 1. The C tier, which is the stable one. A C plugin registers passes
 *    (pass_abi.h: HLO text in and out, typed options; ABI 1.3) and scheduler
 *    strategies (scheduler_strategy_abi.h) through pure C structs. It sets
 *    `build_fingerprint` to NULL, may not set the C++ callbacks, links nothing
 *    of hmo, and keeps loading across hmo rebuilds (any compiler, any
 *    standard library) as long as the ABI major versions match; minor versions
 *    follow the rules below.
 * 2. The C++ tier, which moves in lock-step with the framework. Every in-tree
 *    plugin and backend registers passes, backends and analyses as C++
 *    objects built against libhmo_framework.so (std::function, absl::Status,
 *    HloModule& and vtables cross the boundary), so such a plugin sets
 *    `build_fingerprint` to HMO_BUILD_FINGERPRINT (hmo/plugin/
 *    build_fingerprint.h: the framework version, a digest of the SDK headers,
 *    the compiler, the C++ library, Abseil and the assertion and sanitizer
 *    settings) and the host refuses it unless the fingerprint equals its own.
 *    A C++ plugin may use the C tier's callbacks too.
 *
 * Versioning rules (for this struct and the structs of pass_abi.h and
 * scheduler_strategy_abi.h)
 * ------------------------------------------------------------------------
 * - Every struct that crosses the boundary begins with `size_t struct_size`
 *   (except the few marked frozen, which never grow),
 *   which the side that fills it sets to sizeof() as it was compiled.
 * - MINOR version: fields are only ever appended at the end of a struct. An
 *   older plugin's struct is shorter: the host reads the fields it has and
 *   treats the missing trailing fields as NULL / zero. A newer plugin's struct
 *   is longer: the host ignores the fields it does not know. Minor versions
 *   therefore need not match.
 * - MAJOR version: anything removed, reordered or retyped, or a changed meaning
 *   of an existing field. The host refuses a plugin whose `abi_major` differs
 *   from HMO_PLUGIN_ABI_MAJOR, naming both versions.
 * - A struct shorter than its size in the first minor version of the current
 *   major (HMO_PLUGIN_INFO_MIN_SIZE here) is refused as malformed.
 *
 * Errors
 * ------
 * Callbacks report failure by returning a non-zero HmoStatusCode and writing a
 * NUL-terminated explanation into `message`, a host-owned buffer of
 * `message_capacity` (at least HMO_MESSAGE_CAPACITY) bytes; hmoSetMessage()
 * does this. C++ exceptions must never escape a callback.
 *
 * This header is C (C99 and later) and C++. */

#include "hmo/plugin/abi_base.h"

#ifdef __cplusplus
#include <cstddef>  /* defines the standard library's version macros */
extern "C" {
#endif

#define HMO_PLUGIN_ABI_MAJOR 1
/* 1.1: the value table of scheduler_strategy_abi.h (HmoSchedulingView.value_*,
 * HmoSchedulingInstruction.defined_value_ids / used_value_ids / flags).
 * 1.2: progress reports of a strategy's search (HmoScheduleRequest
 * .report_progress / progress_data, hmoReportProgress()).
 * 1.3: C passes (pass_abi.h; HmoPluginInfo.register_c_passes); a
 * strategy's option declarations (HmoSchedulerStrategy.options /
 * option_count). */
#define HMO_PLUGIN_ABI_MINOR 3

/* The name of the entry point, for the host's symbol lookup. */
#define HMO_PLUGIN_ENTRY_POINT_NAME "hmoGetPluginInfo"

/* The hmo framework version. The framework's build checks that it equals the
 * project version in CMakeLists.txt. */
#define HMO_FRAMEWORK_VERSION "0.3.0"


/* HMO_BUILD_FINGERPRINT, the string a C++ plugin's build must share with the
 * host's, is defined in the C++ header hmo/plugin/build_fingerprint.h: a C
 * plugin has no C++ types to tie it to a build. */

/* Opaque registrar handles of the C++ tier. A C++ plugin turns one into the
 * framework's C++ registrar with hmo::PassRegistrar::FromHandle() and friends
 * (hmo/plugin/plugin_registrars.h). */
typedef struct HmoPassRegistrar HmoPassRegistrar;
typedef struct HmoBackendRegistrar HmoBackendRegistrar;
typedef struct HmoAnalysisRegistrar HmoAnalysisRegistrar;
/* The scheduler-strategy and C-pass registrars are plain C structs; see
 * scheduler_strategy_abi.h and pass_abi.h. */
struct HmoStrategyRegistrar;
struct HmoCPassRegistrar;

/* A registration callback: registers what the plugin provides through
 * `registrar`, which is valid only during the call. Returns kHmoOk, or an
 * error code with an explanation written into `message`. */
typedef HmoStatusCode (*HmoRegisterPassesFn)(HmoPassRegistrar* registrar, char* message,
                                             size_t message_capacity);
typedef HmoStatusCode (*HmoRegisterSchedulerStrategiesFn)(
    struct HmoStrategyRegistrar* registrar, char* message, size_t message_capacity);
typedef HmoStatusCode (*HmoRegisterBackendsFn)(HmoBackendRegistrar* registrar, char* message,
                                               size_t message_capacity);
typedef HmoStatusCode (*HmoRegisterAnalysesFn)(HmoAnalysisRegistrar* registrar, char* message,
                                               size_t message_capacity);
typedef HmoStatusCode (*HmoRegisterCPassesFn)(struct HmoCPassRegistrar* registrar, char* message,
                                              size_t message_capacity);

/* What hmoGetPluginInfo() returns. Fields are ABI 1.0 unless marked. */
typedef struct HmoPluginInfo {
  /* sizeof(HmoPluginInfo) as the plugin was compiled. */
  size_t struct_size;
  /* HMO_PLUGIN_ABI_MAJOR / HMO_PLUGIN_ABI_MINOR as the plugin was compiled. */
  uint32_t abi_major;
  uint32_t abi_minor;
  /* The plugin's name (non-empty; used in messages and `hmo plugins`) and
   * version (free-form, e.g. "1.2.0"). */
  const char* name;
  const char* version;
  /* HMO_BUILD_FINGERPRINT for a C++ plugin; NULL for a C plugin, which must
   * then leave register_passes, register_backends and register_analyses NULL
   * (the C++ tier's callbacks). */
  const char* build_fingerprint;
  /* Registration callbacks; each may be NULL. */
  HmoRegisterPassesFn register_passes;
  HmoRegisterSchedulerStrategiesFn register_scheduler_strategies;
  HmoRegisterBackendsFn register_backends;
  HmoRegisterAnalysesFn register_analyses;
  /* ABI 1.3: registers C passes (pass_abi.h); allowed in a C plugin. Called
   * after register_analyses. */
  HmoRegisterCPassesFn register_c_passes;
} HmoPluginInfo;

/* The size of the ABI 1.0 struct: the least struct_size the host accepts. */
#define HMO_PLUGIN_INFO_MIN_SIZE \
  (offsetof(HmoPluginInfo, register_analyses) + sizeof(HmoRegisterAnalysesFn))

/* The entry point's type. */
typedef const HmoPluginInfo* (*HmoGetPluginInfoFn)(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* HMO_PLUGIN_PLUGIN_ABI_H_ */
