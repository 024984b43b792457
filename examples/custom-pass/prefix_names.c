/* prefix-names: a C pass (hmo's stable C tier, pass_abi.h) that puts a prefix
 * before the name of every instruction and computation, so that modules can be
 * merged or traced without name clashes.
 *
 * It works on the HLO text the host hands it, where every name is written
 * `%name` outside quoted strings, and needs neither hmo's C++ SDK nor the C++
 * library: it is built as C99 and loads into any hmo of ABI major 1. */

#include <stdlib.h>
#include <string.h>

#include "hmo/plugin/pass_abi.h"
#include "hmo/plugin/plugin_abi.h"

static HmoStatusCode PrefixNames(const void* data, HmoPassRunRequest* request) {
  const char* prefix = hmoFindPassOption(request, "prefix")->string_value;
  const size_t prefix_length = strlen(prefix);
  const char* in = request->module_text;
  const size_t length = request->module_text_length;
  size_t names = 0, i, out_length = 0;
  int in_string = 0;
  char* out;
  HmoStatusCode code;
  (void)data;
  if (prefix_length == 0) return kHmoOk; /* nothing to do: no result, no change */
  for (i = 0; i < length; ++i) names += in[i] == '%';
  out = (char*)malloc(length + names * prefix_length + 1);
  if (out == NULL) {
    return hmoSetMessage(kHmoInternal, "out of memory", request->message,
                         request->message_capacity);
  }
  for (i = 0; i < length; ++i) {
    const char c = in[i];
    out[out_length++] = c;
    if (in_string) {
      if (c == '\\' && i + 1 < length) {
        out[out_length++] = in[++i]; /* an escaped character, `\"` included */
      } else if (c == '"') {
        in_string = 0;
      }
    } else if (c == '"') {
      in_string = 1;
    } else if (c == '%') {
      memcpy(out + out_length, prefix, prefix_length);
      out_length += prefix_length;
    }
  }
  code = hmoSetPassResult(request, out, out_length);
  free(out);
  return code;
}

static const HmoPassOptionDecl kPrefix = {
    sizeof(HmoPassOptionDecl),
    "prefix",
    kHmoPassOptionString,
    "renamed_",
    "the text put before every name (letters, digits, '_', '-', '.')",
    NULL,
    0};
static const HmoPassOptionDecl* const kOptions[] = {&kPrefix};

static const HmoCPass kPass = {sizeof(HmoCPass),
                               "prefix-names",
                               "Put a prefix before the name of every instruction and computation",
                               kOptions,
                               1,
                               PrefixNames,
                               NULL};

static HmoStatusCode RegisterCPasses(HmoCPassRegistrar* registrar, char* message, size_t capacity) {
  return registrar->register_pass(registrar, &kPass, message, capacity);
}

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static HmoPluginInfo info;
  info.struct_size = sizeof(HmoPluginInfo);
  info.abi_major = HMO_PLUGIN_ABI_MAJOR;
  info.abi_minor = HMO_PLUGIN_ABI_MINOR;
  info.name = "custom-c-pass";
  info.version = "1.0.0";
  info.build_fingerprint = NULL; /* a C plugin: nothing ties it to one hmo build */
  info.register_c_passes = RegisterCPasses;
  return &info;
}
