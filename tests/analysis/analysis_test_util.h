#ifndef HMO_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_
#define HMO_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_

// Helpers shared by the memory-analysis tests, in the names they use: parse
// HLO text, find instructions by name, read test data files (the parsing and
// reading are hmo_testing's).

#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_module.h"
#include "support/parsed_module.h"
#include "support/test_data.h"

namespace hmo::testing {

inline std::unique_ptr<HloModule> ParseOrDie(std::string_view text) {
  return test_support::ParseTestModule(text, "test");
}

// The instruction named `name` in any computation of `module`, or null.
inline HloInstruction* Find(const HloModule& module, std::string_view name) {
  for (HloComputation* computation : module.computations()) {
    if (HloInstruction* instruction = computation->GetInstructionWithName(name)) return instruction;
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

inline std::string TestDataPath(std::string_view relative) {
  return test_support::TestDataPath(relative).string();
}

inline std::string ReadFileOrDie(const std::string& path) {
  return test_support::ReadFileOrFail(path);
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_
