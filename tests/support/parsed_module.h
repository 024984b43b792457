#ifndef HMO_TESTS_SUPPORT_PARSED_MODULE_H_
#define HMO_TESTS_SUPPORT_PARSED_MODULE_H_

// Modules for tests. Each helper adds a test failure naming the parser's or
// verifier's message and returns nullptr when the text does not parse (or
// verify), so a test can `ASSERT_NE(module, nullptr)` and go on.

#include <memory>
#include <string_view>

#include "hmo/ir/hlo_module.h"

namespace hmo::test_support {

// `text` parsed, with `filename` in its error positions.
std::unique_ptr<HloModule> ParseTestModule(std::string_view text,
                                           std::string_view filename = "test.hlo");

// `text` parsed and checked by the verifier.
std::unique_ptr<HloModule> ParseAndVerifyTestModule(std::string_view text,
                                                    std::string_view filename = "test.hlo");

// The module in tests/<relative>, parsed.
std::unique_ptr<HloModule> LoadTestModule(std::string_view relative);

}  // namespace hmo::test_support

#endif  // HMO_TESTS_SUPPORT_PARSED_MODULE_H_
