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

// A counted while loop carrying (s32[] counter, f32[4] x), the module the
// analyses' while-loop tests share; `scheduled` marks it is_scheduled.
inline std::string WhileLoopModule(bool scheduled) {
  return std::string("HloModule loop") + (scheduled ? ", is_scheduled=true" : "") + R"(
cond {
  cp = (s32[], f32[4]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  c10 = s32[] constant(10)
  ROOT lt = pred[] compare(ci, c10), direction=LT
}
body {
  bp = (s32[], f32[4]) parameter(0)
  bi = s32[] get-tuple-element(bp), index=0
  bx = f32[4] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  inc = s32[] add(bi, one)
  ROOT bt = (s32[], f32[4]) tuple(inc, bx)
}
ENTRY e {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)";
}

inline std::string TestDataPath(std::string_view relative) {
  return test_support::TestDataPath(relative).string();
}

inline std::string ReadFileOrDie(const std::string& path) {
  return test_support::ReadFileOrFail(path);
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_ANALYSIS_ANALYSIS_TEST_UTIL_H_
