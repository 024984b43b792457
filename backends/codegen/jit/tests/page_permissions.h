// Test helper: the permissions /proc/self/maps shows for an address.

#ifndef HMO_CODEGEN_TESTS_PAGE_PERMISSIONS_H_
#define HMO_CODEGEN_TESTS_PAGE_PERMISSIONS_H_

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace hmo::codegen {

// "r-x", "r--", "rw-", ... for the mapping containing `address`, or
// "unmapped" when none does.
inline std::string PagePermissions(const void* address) {
  const uintptr_t target = reinterpret_cast<uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, permissions;
    fields >> range >> permissions;
    const size_t dash = range.find('-');
    const uintptr_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
    const uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (target >= begin && target < end) return permissions.substr(0, 3);
  }
  return "unmapped";
}

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_TESTS_PAGE_PERMISSIONS_H_
