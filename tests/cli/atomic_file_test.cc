// The hmo tool's output files: complete or absent, also when a signal ends
// the process mid-write.

#include "atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

namespace hmo::cli {
namespace {

namespace fs = std::filesystem;

fs::path FreshDirectory(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (name + "." + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(AtomicFileTest, WritesTheWholeFileAndLeavesNoTemporary) {
  const fs::path dir = FreshDirectory("hmo_atomic_file");
  ASSERT_TRUE(WriteFileAtomically(dir / "out.hlo", "HloModule m\n").ok());
  std::ifstream in(dir / "out.hlo");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "HloModule m\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

// A signal that ends the process while a temporary file is pending removes
// it, and the process still ends by that signal.
void DieBySignalWhilePending(const fs::path& temporary, int signal_number) {
  std::ofstream(temporary) << "partial";
  const PendingTemporaryFile pending(temporary);
  raise(signal_number);
}

TEST(AtomicFileDeathTest, SigintSigtermAndSighupRemoveThePendingTemporaryFile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path dir = FreshDirectory("hmo_atomic_file_signal");
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    const fs::path temporary = dir / (".out.hlo.tmp." + std::to_string(signal_number));
    EXPECT_EXIT(DieBySignalWhilePending(temporary, signal_number),
                ::testing::KilledBySignal(signal_number), "")
        << strsignal(signal_number);
    EXPECT_FALSE(fs::exists(temporary)) << strsignal(signal_number);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hmo::cli
