#ifndef HMO_SRC_PLUGIN_C_PASS_REGISTRATION_H_
#define HMO_SRC_PLUGIN_C_PASS_REGISTRATION_H_

// Turns a pass a C plugin registers (pass_abi.h) into an ordinary
// PassRegistration: its option declarations become a PassOptionSchema, and
// the passes it creates print the module as HLO text, call the plugin, and
// parse and verify the text it hands back.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/pass_registry.h"
#include "hmo/plugin/pass_abi.h"

namespace hmo {

// Returns the registration of `pass`, provided by plugin `plugin`, or
// InvalidArgument naming the plugin and the pass for a malformed struct: one
// shorter than ABI 1.3's, a NULL name or run function, an option declaration
// that is NULL, too short, not kebab-case, repeated, of an unknown type, with
// a default its type does not read, or an enum without allowed values (or
// whose default is not one of them, or that has no default).
absl::StatusOr<PassRegistration> MakeCPassRegistration(const HmoCPass& pass,
                                                       std::string_view plugin);

}  // namespace hmo

#endif  // HMO_SRC_PLUGIN_C_PASS_REGISTRATION_H_
