#ifndef HMO_SRC_PLUGIN_C_OPTION_SCHEMA_H_
#define HMO_SRC_PLUGIN_C_OPTION_SCHEMA_H_

// The option declarations of the C tier (HmoPassOptionDecl, pass_abi.h),
// which C passes and scheduler strategies both use, as a PassOptionSchema.

#include <cstddef>

#include "absl/status/statusor.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/plugin/pass_abi.h"

namespace hmo {

// The schema of `count` declarations at `declarations` (NULL only when
// `count` is 0), or InvalidArgument naming the first malformed one: NULL,
// shorter than ABI 1.3's, without a key, not kebab-case, declared twice, of
// an unknown type, with a default its type does not read, or an enum without
// allowed values, without a default or whose default is not among them.
absl::StatusOr<PassOptionSchema> OptionSchemaFromDeclarations(
    const HmoPassOptionDecl* const* declarations, size_t count);

}  // namespace hmo

#endif  // HMO_SRC_PLUGIN_C_OPTION_SCHEMA_H_
