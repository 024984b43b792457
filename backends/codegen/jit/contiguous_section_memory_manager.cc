#include "hmo/codegen/jit/contiguous_section_memory_manager.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "llvm/Support/Memory.h"

namespace hmo::codegen {
namespace {

size_t PageSize() {
  static const size_t page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page_size;
}

uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// A region's page-rounded size. Alignments up to a page are met by the page-
// aligned region start; a larger one may need up to `alignment` of padding.
size_t RegionBytes(uint64_t size, uint64_t alignment) {
  if (size == 0) return 0;
  const uint64_t slack = alignment > PageSize() ? alignment : 0;
  return RoundUp(size + slack, PageSize());
}

}  // namespace

ContiguousSectionMemoryManager::ContiguousSectionMemoryManager(size_t unannounced_rwdata_bytes)
    : unannounced_rwdata_bytes_(unannounced_rwdata_bytes) {}

ContiguousSectionMemoryManager::~ContiguousSectionMemoryManager() {
  // The unwinder must forget our frames before their memory goes away; a
  // no-op when the linking layer has already deregistered them.
  deregisterEHFrames();
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
}

void ContiguousSectionMemoryManager::Reserve(uintptr_t code_size, uint64_t code_align,
                                             uintptr_t rodata_size, uint64_t rodata_align,
                                             uintptr_t rwdata_size, uint64_t rwdata_align) {
  if (reserved_) {
    if (error_.empty()) {
      error_ =
          "ContiguousSectionMemoryManager: reserveAllocationSpace called twice; use one "
          "memory manager per object";
    }
    return;
  }
  reserved_ = true;
  code_.reserved_bytes = RegionBytes(code_size, code_align);
  rodata_.reserved_bytes = RegionBytes(rodata_size, rodata_align);
  // The unannounced entries are pointer-aligned; rounding the announced size
  // up to that keeps them inside the region whatever order they come in.
  const uint64_t unannounced_align = unannounced_rwdata_bytes_ > 0 ? alignof(void*) : 1;
  rwdata_.reserved_bytes =
      RegionBytes(RoundUp(rwdata_size, unannounced_align) + unannounced_rwdata_bytes_,
                  std::max<uint64_t>(rwdata_align, unannounced_align));
  const size_t total = code_.reserved_bytes + rodata_.reserved_bytes + rwdata_.reserved_bytes;
  if (total == 0) return;
  void* mapping = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    error_ = absl::StrCat("ContiguousSectionMemoryManager: mmap of ", total,
                          " bytes failed: ", std::strerror(errno));
    code_.reserved_bytes = rodata_.reserved_bytes = rwdata_.reserved_bytes = 0;
    return;
  }
  mapping_ = static_cast<uint8_t*>(mapping);
  mapping_bytes_ = total;
  code_.begin = mapping_;
  rodata_.begin = code_.begin + code_.reserved_bytes;
  rwdata_.begin = rodata_.begin + rodata_.reserved_bytes;
}

uint8_t* ContiguousSectionMemoryManager::Allocate(Region& region, const char* region_name,
                                                  uintptr_t size, unsigned alignment,
                                                  llvm::StringRef section_name) {
  const uint64_t align = std::max<uint64_t>(alignment, 1);
  if (region.begin != nullptr) {
    const uint64_t base = reinterpret_cast<uintptr_t>(region.begin);
    const uint64_t start = RoundUp(base + region.used_bytes, align) - base;
    if (start <= region.reserved_bytes && size <= region.reserved_bytes - start) {
      region.used_bytes = start + size;
      return region.begin + start;
    }
  }
  if (error_.empty()) {
    error_ =
        absl::StrCat("ContiguousSectionMemoryManager: section '", section_name.str(), "' (", size,
                     " bytes, alignment ", align, ") does not fit in the ", region_name,
                     " region (", region.used_bytes, " of ", region.reserved_bytes, " bytes used",
                     reserved_ ? ")" : "; reserveAllocationSpace was not called)");
  }
  // Somewhere for the linker to write; never executed, since finalizeMemory
  // fails. RuntimeDyld treats a null section address as a fatal error.
  auto buffer = std::make_unique<uint8_t[]>(size + align);
  uint8_t* aligned =
      reinterpret_cast<uint8_t*>(RoundUp(reinterpret_cast<uintptr_t>(buffer.get()), align));
  overflow_buffers_.push_back(std::move(buffer));
  return aligned;
}

uint8_t* ContiguousSectionMemoryManager::allocateCodeSection(uintptr_t size, unsigned alignment,
                                                             unsigned /*section_id*/,
                                                             llvm::StringRef section_name) {
  return Allocate(code_, "code", size, alignment, section_name);
}

uint8_t* ContiguousSectionMemoryManager::allocateDataSection(uintptr_t size, unsigned alignment,
                                                             unsigned /*section_id*/,
                                                             llvm::StringRef section_name,
                                                             bool is_read_only) {
  if (is_read_only) return Allocate(rodata_, "read-only data", size, alignment, section_name);
  return Allocate(rwdata_, "read-write data", size, alignment, section_name);
}

bool ContiguousSectionMemoryManager::finalizeMemory(std::string* error_message) {
  auto fail = [&](std::string message) {
    if (error_message != nullptr) *error_message = std::move(message);
    return true;
  };
  if (!error_.empty()) return fail(error_);
  if (finalized_) return false;
  if (code_.reserved_bytes > 0 &&
      mprotect(code_.begin, code_.reserved_bytes, PROT_READ | PROT_EXEC) != 0) {
    return fail(
        absl::StrCat("ContiguousSectionMemoryManager: mprotect(R+X) of the code region "
                     "failed: ",
                     std::strerror(errno)));
  }
  if (rodata_.reserved_bytes > 0 &&
      mprotect(rodata_.begin, rodata_.reserved_bytes, PROT_READ) != 0) {
    return fail(
        absl::StrCat("ContiguousSectionMemoryManager: mprotect(R) of the read-only data "
                     "region failed: ",
                     std::strerror(errno)));
  }
  if (code_.used_bytes > 0) {
    llvm::sys::Memory::InvalidateInstructionCache(code_.begin, code_.used_bytes);
  }
  finalized_ = true;
  return false;
}

}  // namespace hmo::codegen
