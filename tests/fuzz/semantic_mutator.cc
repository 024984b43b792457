// libFuzzer's custom mutator for the semantic targets: an input that parses
// as HLO is mutated structurally (hlo_mutator.h) until a mutant verifies (a
// few tries); anything else gets libFuzzer's byte-level mutations.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "hlo_mutator.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::mt19937_64 rng(seed);
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto module = hmo::ParseHloModule(text, "mutant.hlo");
    if (!module.ok()) return LLVMFuzzerMutate(data, size, max_size);
    // One to three edits at once reach combinations one edit cannot.
    const int edits = std::uniform_int_distribution<int>(1, 3)(rng);
    bool mutated = false;
    for (int e = 0; e < edits; ++e) {
      mutated = hmo::fuzz::MutateModule(**module, rng) != hmo::fuzz::HloMutation::kCount || mutated;
    }
    if (!mutated || !hmo::CollectVerifierErrors(**module, {}).empty()) continue;
    const std::string mutant = (*module)->ToString();
    if (mutant.size() > max_size) continue;
    std::memcpy(data, mutant.data(), mutant.size());
    return mutant.size();
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
