// ContiguousSectionMemoryManager on its own: layout of the one reservation,
// bump allocation, protections, and overflow reported instead of corrupting.

#include "hmo/codegen/jit/contiguous_section_memory_manager.h"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "page_permissions.h"

namespace hmo::codegen {
namespace {

const uintptr_t kPage = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(ContiguousSectionMemoryManagerTest, RegionsArePageAlignedAndConsecutive) {
  ContiguousSectionMemoryManager memory;
  memory.reserveAllocationSpace(100, 16, kPage + 1, 8, 30, 8);
  ASSERT_NE(memory.reservation_begin(), nullptr);
  EXPECT_EQ(memory.code().begin, memory.reservation_begin());
  EXPECT_EQ(memory.code().reserved_bytes, kPage);
  EXPECT_EQ(memory.rodata().begin, memory.code().begin + kPage);
  EXPECT_EQ(memory.rodata().reserved_bytes, 2 * kPage);  // kPage + 1 rounds up.
  EXPECT_EQ(memory.rwdata().begin, memory.rodata().begin + 2 * kPage);
  EXPECT_EQ(memory.rwdata().reserved_bytes, kPage);
  EXPECT_EQ(memory.reserved_bytes(), 4 * kPage);
  EXPECT_EQ(memory.reservation_end(), memory.reservation_begin() + 4 * kPage);
  EXPECT_EQ(Address(memory.reservation_begin()) % kPage, 0u);
}

TEST(ContiguousSectionMemoryManagerTest, BumpAllocatesWithAlignmentInEachRegion) {
  ContiguousSectionMemoryManager memory;
  memory.reserveAllocationSpace(256, 64, 128, 32, 64, 16);
  uint8_t* code_a = memory.allocateCodeSection(10, 16, 0, ".text");
  uint8_t* code_b = memory.allocateCodeSection(20, 64, 1, ".text.b");
  uint8_t* ro = memory.allocateDataSection(40, 32, 2, ".rodata", /*is_read_only=*/true);
  uint8_t* rw = memory.allocateDataSection(12, 8, 3, ".data", /*is_read_only=*/false);
  EXPECT_EQ(code_a, memory.code().begin);
  EXPECT_EQ(code_b, memory.code().begin + 64);  // 10 bytes used, next 64-aligned offset.
  EXPECT_EQ(memory.code().used_bytes, 84u);
  EXPECT_EQ(ro, memory.rodata().begin);
  EXPECT_EQ(memory.rodata().used_bytes, 40u);
  EXPECT_EQ(rw, memory.rwdata().begin);
  EXPECT_EQ(memory.rwdata().used_bytes, 12u);
  std::string error;
  EXPECT_FALSE(memory.finalizeMemory(&error)) << error;
  EXPECT_TRUE(memory.finalized());
}

TEST(ContiguousSectionMemoryManagerTest, FinalizeProtectsCodeAndReadOnlyData) {
  ContiguousSectionMemoryManager memory;
  memory.reserveAllocationSpace(16, 16, 16, 16, 16, 16);
  uint8_t* code = memory.allocateCodeSection(16, 16, 0, ".text");
  uint8_t* ro = memory.allocateDataSection(16, 16, 1, ".rodata", true);
  uint8_t* rw = memory.allocateDataSection(16, 16, 2, ".data", false);
  std::memset(code, 0xc3, 16);  // ret
  std::memset(ro, 1, 16);
  std::string error;
  ASSERT_FALSE(memory.finalizeMemory(&error)) << error;
  EXPECT_EQ(PagePermissions(code), "r-x");
  EXPECT_EQ(PagePermissions(ro), "r--");
  EXPECT_EQ(PagePermissions(rw), "rw-");
  rw[0] = 7;  // Still writable.
  EXPECT_EQ(rw[0], 7);
  EXPECT_EQ(ro[15], 1);
}

TEST(ContiguousSectionMemoryManagerTest, OverflowIsReportedByFinalizeAndStaysOutside) {
  ContiguousSectionMemoryManager memory;
  memory.reserveAllocationSpace(64, 16, 0, 1, 64, 8);
  ASSERT_EQ(memory.reserved_bytes(), 2 * kPage);
  uint8_t* fits = memory.allocateDataSection(64, 8, 0, ".data", false);
  EXPECT_EQ(fits, memory.rwdata().begin);
  // The read-only region was announced empty, and this one is larger than the
  // whole page-rounded read-write region.
  uint8_t* ro = memory.allocateDataSection(32, 8, 1, ".rodata.extra", true);
  uint8_t* big = memory.allocateDataSection(2 * kPage, 64, 2, ".data.big", false);
  ASSERT_NE(ro, nullptr);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(Address(big) % 64, 0u);
  for (uint8_t* p : {ro, big}) {
    EXPECT_TRUE(Address(p) >= Address(memory.reservation_end()) ||
                Address(p) < Address(memory.reservation_begin()));
  }
  // The linker writes into what it got; that must not touch the reservation.
  std::memset(fits, 0x11, 64);
  std::memset(big, 0xff, 2 * kPage);
  std::memset(ro, 0xff, 32);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(fits[i], 0x11);
  EXPECT_EQ(memory.rwdata().used_bytes, 64u);

  std::string error;
  EXPECT_TRUE(memory.finalizeMemory(&error));
  EXPECT_NE(error.find(".rodata.extra"), std::string::npos) << error;
  EXPECT_NE(error.find("read-only data"), std::string::npos) << error;
  EXPECT_FALSE(memory.finalized());
}

TEST(ContiguousSectionMemoryManagerTest, AllocationWithoutReservationFails) {
  ContiguousSectionMemoryManager memory;
  EXPECT_TRUE(memory.needsToReserveAllocationSpace());
  ASSERT_NE(memory.allocateCodeSection(8, 8, 0, ".text"), nullptr);
  std::string error;
  EXPECT_TRUE(memory.finalizeMemory(&error));
  EXPECT_NE(error.find("reserveAllocationSpace was not called"), std::string::npos) << error;
}

TEST(ContiguousSectionMemoryManagerTest, SecondReservationIsAnError) {
  ContiguousSectionMemoryManager memory;
  memory.reserveAllocationSpace(8, 8, 8, 8, 8, 8);
  memory.reserveAllocationSpace(8, 8, 8, 8, 8, 8);
  std::string error;
  EXPECT_TRUE(memory.finalizeMemory(&error));
  EXPECT_NE(error.find("twice"), std::string::npos) << error;
}

TEST(ContiguousSectionMemoryManagerTest, AlignmentAboveAPageGetsRoomToAlign) {
  ContiguousSectionMemoryManager memory;
  const uint32_t big_alignment = static_cast<uint32_t>(4 * kPage);
  memory.reserveAllocationSpace(0, 1, 100, big_alignment, 0, 1);
  uint8_t* ro = memory.allocateDataSection(100, big_alignment, 0, ".rodata.aligned", true);
  EXPECT_EQ(Address(ro) % big_alignment, 0u);
  std::string error;
  EXPECT_FALSE(memory.finalizeMemory(&error)) << error;
  EXPECT_GE(Address(ro), Address(memory.reservation_begin()));
  EXPECT_LE(Address(ro) + 100, Address(memory.reservation_end()));
}

}  // namespace
}  // namespace hmo::codegen
