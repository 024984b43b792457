#ifndef HMO_PASS_KEBAB_CASE_H_
#define HMO_PASS_KEBAB_CASE_H_

// The naming rule for everything a pipeline names: passes, option keys,
// scheduler strategies, backends and analyses.

#include <string_view>

namespace hmo {

// Returns whether `name` is kebab-case: lower-case letters and digits in words
// joined by single hyphens, starting with a letter ("memory-scheduler",
// "max-iterations", "list2").
bool IsKebabCase(std::string_view name);

}  // namespace hmo

#endif  // HMO_PASS_KEBAB_CASE_H_
