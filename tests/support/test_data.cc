#include "support/test_data.h"

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace hmo::test_support {

std::string ReadFileOrEmpty(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::string ReadFileOrFail(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::filesystem::path TestDataPath(std::string_view relative) {
  return std::filesystem::path(HMO_TEST_DATA_DIR) / std::string(relative);
}

std::string ReadTestData(std::string_view relative) {
  return ReadFileOrEmpty(TestDataPath(relative));
}

}  // namespace hmo::test_support
