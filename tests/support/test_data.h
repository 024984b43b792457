#ifndef HMO_TESTS_SUPPORT_TEST_DATA_H_
#define HMO_TESTS_SUPPORT_TEST_DATA_H_

// Reads a file of the test data folder (HMO_TEST_DATA_DIR, i.e. tests/), for
// HLO modules that several test binaries share.

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace hmo::test_support {

// The text of tests/<relative>; empty when it cannot be read.
inline std::string ReadTestData(std::string_view relative) {
  std::ifstream in(std::string(HMO_TEST_DATA_DIR) + "/" + std::string(relative), std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

}  // namespace hmo::test_support

#endif  // HMO_TESTS_SUPPORT_TEST_DATA_H_
