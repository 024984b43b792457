// The CPU backend's LLVM types for the element types it computes on
// (hmo/ir/computable_element_types.h, shared with the evaluator): each storage
// type is as wide as the table's StorageT, and every other type is refused.

#include "hmo/codegen/element_types.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "hmo/ir/computable_element_types.h"
#include "llvm/IR/DerivedTypes.h"

namespace hmo::codegen {
namespace {

template <typename T>
bool IsComputeTypeOf(const llvm::Type* type) {
  if constexpr (std::is_same_v<T, bool>) return type->isIntegerTy(1);
  if constexpr (std::is_same_v<T, float>) return type->isFloatTy();
  if constexpr (std::is_same_v<T, double>) return type->isDoubleTy();
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return type->isIntegerTy(8 * sizeof(T));
  return false;
}

TEST(ComputableElementTypesTest, CpuStorageAndComputeTypesFollowTheTable) {
  llvm::LLVMContext context;
  int covered = 0;
#define HMO_CHECK_TYPE(kType, ComputeT, StorageT)                                     \
  {                                                                                   \
    SCOPED_TRACE(#kType);                                                             \
    absl::StatusOr<llvm::Type*> storage = StorageType(PrimitiveType::kType, context); \
    absl::StatusOr<llvm::Type*> compute = ComputeType(PrimitiveType::kType, context); \
    ASSERT_TRUE(storage.ok()) << storage.status();                                    \
    ASSERT_TRUE(compute.ok()) << compute.status();                                    \
    EXPECT_EQ((*storage)->getPrimitiveSizeInBits(), 8 * sizeof(StorageT));            \
    EXPECT_TRUE(IsComputeTypeOf<ComputeT>(*compute));                                 \
    ++covered;                                                                        \
  }
  HMO_COMPUTABLE_ELEMENT_TYPES(HMO_CHECK_TYPE)
#undef HMO_CHECK_TYPE
  EXPECT_EQ(covered, 13);
}

TEST(ComputableElementTypesTest, EveryOtherTypeIsRefusedWithItsName) {
  llvm::LLVMContext context;
  for (int i = 0; i < kPrimitiveTypeCount; ++i) {
    const auto type = static_cast<PrimitiveType>(i);
    if (IsComputableElementType(type)) continue;
    SCOPED_TRACE(i);
    EXPECT_FALSE(IsSupportedElementType(type));
    absl::StatusOr<llvm::Type*> storage = StorageType(type, context);
    ASSERT_FALSE(storage.ok());
    EXPECT_NE(std::string(storage.status().message()).find(std::string(PrimitiveTypeName(type))),
              std::string::npos)
        << storage.status();
  }
}

}  // namespace
}  // namespace hmo::codegen
