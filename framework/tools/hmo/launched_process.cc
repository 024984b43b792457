#include "launched_process.h"

#include <cstdlib>
#include <initializer_list>

namespace hmo::cli {

int LaunchedProcessIndex() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(name); value != nullptr) return std::atoi(value);
  }
  return 0;
}

}  // namespace hmo::cli
