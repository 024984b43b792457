#ifndef HMO_TESTS_SUPPORT_TEST_DATA_H_
#define HMO_TESTS_SUPPORT_TEST_DATA_H_

// Files for tests: the test data folder (HMO_TEST_DATA_DIR, i.e. tests/) and
// any file a test reads whole.

#include <filesystem>
#include <string>
#include <string_view>

namespace hmo::test_support {

// The bytes of `path`; empty when it cannot be read.
std::string ReadFileOrEmpty(const std::filesystem::path& path);

// The bytes of `path`; a test failure (and empty) when it cannot be read.
std::string ReadFileOrFail(const std::filesystem::path& path);

// The path of tests/<relative>.
std::filesystem::path TestDataPath(std::string_view relative);

// The text of tests/<relative>; empty when it cannot be read.
std::string ReadTestData(std::string_view relative);

}  // namespace hmo::test_support

#endif  // HMO_TESTS_SUPPORT_TEST_DATA_H_
