#ifndef HMO_CODEGEN_ELEMENT_TYPES_H_
#define HMO_CODEGEN_ELEMENT_TYPES_H_

// How HLO element types are represented in generated code.
//
// Every element has two LLVM representations:
//   - the storage type, what a buffer holds: pred -> i8 (0 or 1), s8/u8 ->
//     i8, ..., s64/u64 -> i64, f16 and bf16 -> i16 (the raw bits), f32 ->
//     float, f64 -> double;
//   - the compute type, what elemental generators pass around: pred -> i1,
//     integers -> iN (signedness comes from the PrimitiveType, not LLVM),
//     f16 and bf16 -> float (arithmetic in f32, rounded back on store),
//     f32 -> float, f64 -> double.
// Loads convert storage -> compute, stores compute -> storage; f16 and bf16
// are converted with integer bit manipulation (round to nearest even), so no
// runtime helper or target feature is needed.

#include "absl/status/statusor.h"
#include "hmo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Type.h"
#include "llvm/IR/Value.h"

namespace hmo::codegen {

// pred, s8..s64, u8..u64, f16, bf16, f32, f64.
bool IsSupportedElementType(PrimitiveType type);

// UnimplementedError naming the type when it is not supported.
absl::StatusOr<llvm::Type*> StorageType(PrimitiveType type, llvm::LLVMContext& context);
absl::StatusOr<llvm::Type*> ComputeType(PrimitiveType type, llvm::LLVMContext& context);

// Converts a value loaded with StorageType(type) to ComputeType(type).
llvm::Value* EmitStorageToCompute(PrimitiveType type, llvm::Value* stored, llvm::IRBuilderBase& b);
// Converts a ComputeType(type) value to StorageType(type) (rounds f16/bf16
// to nearest even; pred becomes 0/1).
llvm::Value* EmitComputeToStorage(PrimitiveType type, llvm::Value* value, llvm::IRBuilderBase& b);
// A ComputeType(type) value rounded to `type`'s values, still a compute
// value: EmitStorageToCompute(EmitComputeToStorage(value)) (the same
// values, bit for bit), for f16 in fewer instructions; other types are
// unchanged.
llvm::Value* EmitRoundToStorage(PrimitiveType type, llvm::Value* value, llvm::IRBuilderBase& b);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_ELEMENT_TYPES_H_
