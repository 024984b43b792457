#include "hmo/base/input_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include <sys/stat.h>

#include "absl/strings/str_cat.h"

namespace hmo {

absl::StatusOr<std::string> ReadInputFile(std::string_view path, int64_t max_bytes) {
  const std::string name(path);
  struct stat info {};
  if (::stat(name.c_str(), &info) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot open ", name, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    const char* kind = S_ISDIR(info.st_mode)    ? "a directory"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISFIFO(info.st_mode) ? "a FIFO"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                                                : "not a regular file";
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": is ", kind, "; an input must be a regular file"));
  }
  if (static_cast<int64_t>(info.st_size) > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": ", info.st_size, " bytes is over the input limit of ", max_bytes, " bytes"));
  }
  std::ifstream in(name, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", name, ": ", std::strerror(errno)));
  }
  std::string contents(static_cast<size_t>(info.st_size), '\0');
  in.read(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (in.bad() || in.gcount() != static_cast<std::streamsize>(contents.size())) {
    return absl::DataLossError(absl::StrCat("cannot read ", name, ": ", std::strerror(errno)));
  }
  return contents;
}

}  // namespace hmo
