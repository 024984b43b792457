// A RuntimeDyld memory manager that places all of one object's sections in a
// single contiguous reservation.
//
// Why: the JIT compiles with the small code model, whose PC-relative
// references between code and data must stay within +-2 GiB. Allocating every
// section from one mapping guarantees that, keeps a module's code together for
// the instruction cache and TLB, and makes the whole module's footprint one
// number. RuntimeDyld announces the sizes of all sections up front
// (reserveAllocationSpace), so the reservation is exact up to page rounding.
//
// Layout of the reservation (each region starts on a page boundary):
//   [code | read-only data | read-write data]
// After finalizeMemory the code pages are R+X, the read-only pages R, and the
// read-write pages stay RW.
//
// Use one instance per object file: reserveAllocationSpace may be called once.

#ifndef HMO_CODEGEN_JIT_CONTIGUOUS_SECTION_MEMORY_MANAGER_H_
#define HMO_CODEGEN_JIT_CONTIGUOUS_SECTION_MEMORY_MANAGER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/RTDyldMemoryManager.h"
#if LLVM_VERSION_MAJOR >= 16
#include "llvm/Support/Alignment.h"
#endif

namespace hmo::codegen {

class ContiguousSectionMemoryManager : public llvm::RTDyldMemoryManager {
 public:
  // One page-aligned part of the reservation.
  struct Region {
    uint8_t* begin = nullptr;
    size_t reserved_bytes = 0;  // Page-rounded size of the region.
    size_t used_bytes = 0;      // Bytes handed out, alignment padding included.
  };

  // `unannounced_rwdata_bytes` is added to the read-write region when it is
  // reserved. RuntimeDyld (LLVM 14, x86-64 ELF) gives every stub for a call to
  // an external symbol a GOT entry that reserveAllocationSpace does not count;
  // CpuJit passes an upper bound for those (one pointer per relocation against
  // an undefined symbol).
  explicit ContiguousSectionMemoryManager(size_t unannounced_rwdata_bytes = 0);
  ~ContiguousSectionMemoryManager() override;
  ContiguousSectionMemoryManager(const ContiguousSectionMemoryManager&) = delete;
  ContiguousSectionMemoryManager& operator=(const ContiguousSectionMemoryManager&) = delete;

  // RuntimeDyld::MemoryManager.
  bool needsToReserveAllocationSpace() override { return true; }
#if LLVM_VERSION_MAJOR >= 16
  void reserveAllocationSpace(uintptr_t code_size, llvm::Align code_align, uintptr_t rodata_size,
                              llvm::Align rodata_align, uintptr_t rwdata_size,
                              llvm::Align rwdata_align) override {
    Reserve(code_size, code_align.value(), rodata_size, rodata_align.value(), rwdata_size,
            rwdata_align.value());
  }
#else
  void reserveAllocationSpace(uintptr_t code_size, uint32_t code_align, uintptr_t rodata_size,
                              uint32_t rodata_align, uintptr_t rwdata_size,
                              uint32_t rwdata_align) override {
    Reserve(code_size, code_align, rodata_size, rodata_align, rwdata_size, rwdata_align);
  }
#endif
  uint8_t* allocateCodeSection(uintptr_t size, unsigned alignment, unsigned section_id,
                               llvm::StringRef section_name) override;
  uint8_t* allocateDataSection(uintptr_t size, unsigned alignment, unsigned section_id,
                               llvm::StringRef section_name, bool is_read_only) override;
  // Applies the page protections and flushes the instruction cache. Returns
  // true (an error, with *error_message set) when an allocation did not fit in
  // what reserveAllocationSpace announced, when it was never called, or when
  // mprotect fails; the object must not be run then.
  bool finalizeMemory(std::string* error_message = nullptr) override;

  // The whole reservation, [reservation_begin, reservation_end); both null
  // before reserveAllocationSpace or when it announced nothing.
  const uint8_t* reservation_begin() const { return mapping_; }
  const uint8_t* reservation_end() const { return mapping_ + mapping_bytes_; }
  size_t reserved_bytes() const { return mapping_bytes_; }
  const Region& code() const { return code_; }
  const Region& rodata() const { return rodata_; }
  const Region& rwdata() const { return rwdata_; }
  // Whether finalizeMemory has applied the protections successfully.
  bool finalized() const { return finalized_; }

 private:
  void Reserve(uintptr_t code_size, uint64_t code_align, uintptr_t rodata_size,
               uint64_t rodata_align, uintptr_t rwdata_size, uint64_t rwdata_align);
  // Bump-allocates from `region`; on overflow records an error and returns
  // memory outside the reservation so the linker's writes land somewhere
  // harmless until finalizeMemory reports the failure.
  uint8_t* Allocate(Region& region, const char* region_name, uintptr_t size, unsigned alignment,
                    llvm::StringRef section_name);

  size_t unannounced_rwdata_bytes_;
  uint8_t* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
  bool reserved_ = false;
  bool finalized_ = false;
  Region code_;
  Region rodata_;
  Region rwdata_;
  std::string error_;  // First allocation or reservation failure.
  std::vector<std::unique_ptr<uint8_t[]>> overflow_buffers_;
};

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_JIT_CONTIGUOUS_SECTION_MEMORY_MANAGER_H_
