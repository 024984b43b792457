#include "support/parsed_module.h"

#include <string>

#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "support/test_data.h"

namespace hmo::test_support {

std::unique_ptr<HloModule> ParseTestModule(std::string_view text, std::string_view filename) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, filename);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

std::unique_ptr<HloModule> ParseAndVerifyTestModule(std::string_view text,
                                                    std::string_view filename) {
  std::unique_ptr<HloModule> module = ParseTestModule(text, filename);
  if (module == nullptr) return nullptr;
  absl::Status verified = VerifyHloModule(*module);
  EXPECT_TRUE(verified.ok()) << verified;
  return verified.ok() ? std::move(module) : nullptr;
}

std::unique_ptr<HloModule> LoadTestModule(std::string_view relative) {
  const std::string text = ReadTestData(relative);
  EXPECT_FALSE(text.empty()) << "cannot read " << TestDataPath(relative);
  if (text.empty()) return nullptr;
  return ParseTestModule(text, relative);
}

}  // namespace hmo::test_support
