#include "atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "fmt/format.h"

namespace hmo::cli {

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
