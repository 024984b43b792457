#ifndef HMO_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_
#define HMO_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_

// Helpers shared by the memory-analysis tests: parse HLO text, find
// instructions by name, read test data files.

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::testing {

inline std::unique_ptr<HloModule> ParseOrDie(std::string_view text) {
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
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
  return std::string(HMO_TEST_DATA_DIR) + "/" + std::string(relative);
}

inline std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_
