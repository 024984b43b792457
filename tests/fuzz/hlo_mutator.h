#ifndef HMO_TESTS_FUZZ_HLO_MUTATOR_H_
#define HMO_TESTS_FUZZ_HLO_MUTATOR_H_

// Structural mutations of a parsed HLO module for the semantic fuzz targets:
// where byte-level fuzzing of HLO text mostly produces text the parser or
// the verifier refuses, these edits keep a module well-formed in most cases,
// so the analyses, passes and backends behind the verifier see new programs.

#include <cstdint>
#include <random>
#include <string_view>

namespace hmo {

class HloModule;

namespace fuzz {

// What one mutation changed (for the campaign's statistics).
enum class HloMutation : uint8_t {
  kOpcode,       // an elementwise op becomes another of the same arity
  kOperand,      // an operand becomes another value of the same shape
  kLayout,       // an array's minor-to-major order is permuted
  kMemorySpace,  // an array moves to host memory (S(5)) or back
  kConstant,     // a scalar constant (a loop bound, an index) takes another value
  kAlias,        // an input_output_alias is added or removed
  kCount,
};
std::string_view HloMutationName(HloMutation mutation);

// Applies one mutation chosen with `rng` to `module`. Returns the kind
// applied, or kCount when the chosen kind found nothing to change. The
// module may fail verification afterwards; callers keep only modules that
// verify.
HloMutation MutateModule(HloModule& module, std::mt19937_64& rng);

}  // namespace fuzz
}  // namespace hmo

#endif  // HMO_TESTS_FUZZ_HLO_MUTATOR_H_
