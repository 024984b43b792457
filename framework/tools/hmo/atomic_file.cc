#include "atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "fmt/format.h"

namespace hmo::cli {
namespace {

// The paths of pending temporary files, each a heap copy owned by its slot.
// The signal handler only reads the slots and calls unlink, which is
// async-signal-safe.
std::array<std::atomic<char*>, PendingTemporaryFile::kMaxPendingTemporaryFiles> pending_paths{};

constexpr std::array<int, 3> kCleanupSignals = {SIGINT, SIGTERM, SIGHUP};

extern "C" void RemovePendingFilesAndReraise(int signal_number) {
  for (std::atomic<char*>& slot : pending_paths) {
    if (const char* path = slot.load(); path != nullptr) ::unlink(path);
  }
  // End the process as the signal's default action would, so the parent
  // sees the signal (a shell prints "Interrupted", make stops).
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, nullptr);
  raise(signal_number);
}

void InstallCleanupHandlers() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (int signal_number : kCleanupSignals) {
      struct sigaction previous = {};
      sigaction(signal_number, nullptr, &previous);
      // A signal the parent told us to ignore (nohup) stays ignored.
      if (previous.sa_handler == SIG_IGN) continue;
      struct sigaction action = {};
      action.sa_handler = RemovePendingFilesAndReraise;
      sigemptyset(&action.sa_mask);
      sigaction(signal_number, &action, nullptr);
    }
  });
}

}  // namespace

PendingTemporaryFile::PendingTemporaryFile(const std::filesystem::path& path) {
  InstallCleanupHandlers();
  char* copy = strdup(path.c_str());
  if (copy == nullptr) return;
  for (int i = 0; i < kMaxPendingTemporaryFiles; ++i) {
    char* expected = nullptr;
    if (pending_paths[i].compare_exchange_strong(expected, copy)) {
      slot_ = i;
      return;
    }
  }
  free(copy);
}

PendingTemporaryFile::~PendingTemporaryFile() {
  if (slot_ >= 0) free(pending_paths[slot_].exchange(nullptr));
}

absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  static std::atomic<int> counter{0};
  const std::filesystem::path temporary =
      path.parent_path() / fmt::format(".{}.tmp.{}.{}", path.filename().string(), getpid(),
                                       counter.fetch_add(1));
  auto fail = [&](std::string_view what) {
    const std::string reason = std::strerror(errno);
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return absl::PermissionDeniedError(
        fmt::format("cannot write {}: {}: {}", path.string(), what, reason));
  };
  // Registered before the file exists, so no moment leaves it untracked.
  const PendingTemporaryFile pending(temporary);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot create a temporary file");
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return fail("write failed");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return fail("fsync failed");
  }
  if (::close(fd) != 0) return fail("close failed");
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return fail("rename failed");
  return absl::OkStatus();
}

}  // namespace hmo::cli
