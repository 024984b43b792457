#ifndef HMO_PASS_SPELLING_SUGGESTION_H_
#define HMO_PASS_SPELLING_SUGGESTION_H_

// "Did you mean ...?" for misspelt pass names, option keys and pipeline keys.

#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace hmo {

// Returns the candidate closest to `word` by edit distance (insertions,
// deletions, substitutions and swaps of adjacent characters), or "" when none
// is close enough to be a plausible typo: at most a third of the word's length,
// and at least one edit allowed.
std::string ClosestSpelling(std::string_view word, absl::Span<const std::string> candidates);

// Returns " (did you mean 'x'?)" for the closest candidate, or "" when none is
// close; ready to append to an error message.
std::string DidYouMean(std::string_view word, absl::Span<const std::string> candidates);

}  // namespace hmo

#endif  // HMO_PASS_SPELLING_SUGGESTION_H_
