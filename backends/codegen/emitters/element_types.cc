#include "hmo/codegen/element_types.h"

#include <string>

#include "absl/status/status.h"
#include "hmo/ir/computable_element_types.h"

namespace hmo::codegen {
namespace {

absl::Status UnsupportedType(PrimitiveType type) {
  return absl::UnimplementedError("CPU codegen: element type " +
                                  std::string(PrimitiveTypeName(type)) + " is not supported");
}

// f16 bits (i16) -> float. The magnitude bits shifted into an f32's
// mantissa/exponent position read as an f32 that is 2^112 too small (the
// exponent biases differ by 112), subnormals included; scaling by 2^112
// fixes normals and subnormals alike. Inf/NaN (exponent all ones) get the
// f32 all-ones exponent instead.
llvm::Value* HalfBitsToFloat(llvm::Value* bits16, llvm::IRBuilderBase& b) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* h = b.CreateZExt(bits16, i32);
  llvm::Value* magnitude = b.CreateShl(b.CreateAnd(h, 0x7fff), 13);
  llvm::Value* scaled = b.CreateFMul(b.CreateBitCast(magnitude, b.getFloatTy()),
                                     llvm::ConstantFP::get(b.getFloatTy(), 0x1p112));
  llvm::Value* scaled_bits = b.CreateBitCast(scaled, i32);
  llvm::Value* is_inf_or_nan = b.CreateICmpEQ(b.CreateAnd(h, 0x7c00), b.getInt32(0x7c00));
  llvm::Value* special = b.CreateOr(magnitude, 0x7f800000);
  llvm::Value* abs_bits = b.CreateSelect(is_inf_or_nan, special, scaled_bits);
  llvm::Value* sign = b.CreateShl(b.CreateAnd(h, 0x8000), 16);
  return b.CreateBitCast(b.CreateOr(abs_bits, sign), b.getFloatTy());
}

// float -> f16 bits (i16), round to nearest even.
llvm::Value* FloatToHalfBits(llvm::Value* value, llvm::IRBuilderBase& b) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* x = b.CreateBitCast(value, i32);
  llvm::Value* sign = b.CreateAnd(b.CreateLShr(x, 16), 0x8000);
  llvm::Value* ax = b.CreateAnd(x, 0x7fffffff);
  // NaN stays a (quiet) NaN, inf stays inf; values from 65520 up round to inf.
  llvm::Value* is_nan = b.CreateICmpUGT(ax, b.getInt32(0x7f800000));
  llvm::Value* overflow = b.CreateICmpUGE(ax, b.getInt32(0x477ff000));
  llvm::Value* special = b.CreateSelect(is_nan, b.getInt32(0x7e00), b.getInt32(0x7c00));
  // Below 2^-14 the result is subnormal: adding 0.5 makes the FPU round the
  // value to a multiple of 2^-24 (the f16 subnormal step), nearest even;
  // the low bits of the sum are then the f16 bits.
  llvm::Value* abs_float = b.CreateBitCast(ax, b.getFloatTy());
  llvm::Value* sum = b.CreateFAdd(abs_float, llvm::ConstantFP::get(b.getFloatTy(), 0.5));
  llvm::Value* subnormal = b.CreateSub(b.CreateBitCast(sum, i32), b.getInt32(0x3f000000));
  llvm::Value* is_subnormal = b.CreateICmpULT(ax, b.getInt32(0x38800000));
  // Normal: rebias the exponent and round the 13 dropped bits to nearest even.
  llvm::Value* odd = b.CreateAnd(b.CreateLShr(ax, 13), 1);
  llvm::Value* rebiased = b.CreateAdd(
      ax, b.CreateAdd(b.getInt32(static_cast<uint32_t>((15 - 127) << 23) + 0xfff), odd));
  llvm::Value* normal = b.CreateLShr(rebiased, 13);
  llvm::Value* finite = b.CreateSelect(is_subnormal, subnormal, normal);
  llvm::Value* magnitude = b.CreateSelect(overflow, special, finite);
  return b.CreateTrunc(b.CreateOr(magnitude, sign), b.getInt16Ty());
}

llvm::Value* BFloatBitsToFloat(llvm::Value* bits16, llvm::IRBuilderBase& b) {
  return b.CreateBitCast(b.CreateShl(b.CreateZExt(bits16, b.getInt32Ty()), 16), b.getFloatTy());
}

// float -> bf16 bits, round to nearest even; NaN becomes a quiet NaN.
llvm::Value* FloatToBFloatBits(llvm::Value* value, llvm::IRBuilderBase& b) {
  llvm::Value* x = b.CreateBitCast(value, b.getInt32Ty());
  llvm::Value* odd = b.CreateAnd(b.CreateLShr(x, 16), 1);
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(x, b.CreateAdd(b.getInt32(0x7fff), odd)), 16);
  llvm::Value* is_nan = b.CreateFCmpUNO(value, value);
  llvm::Value* nan = b.CreateOr(b.CreateAnd(b.CreateLShr(x, 16), 0x8000), 0x7fc0);
  return b.CreateTrunc(b.CreateSelect(is_nan, nan, rounded), b.getInt16Ty());
}

// float -> the nearest f16 value (ties to even) as a float, without the
// f16 bits in between: x + M rounds x to a multiple of f16's step at x's
// exponent e (2^(e-10), and 2^-24 below f16's normals) when
// M = 1.5 * 2^(e+13), whose binade has that step as its ulp; subtracting M
// is exact. The sign is x's (zeros keep theirs); magnitudes above f16's
// largest finite one become inf, NaN the quiet NaN the f16 bits give back.
// A third of FloatToHalfBits followed by HalfBitsToFloat, and the same
// values.
llvm::Value* RoundFloatToHalf(llvm::Value* value, llvm::IRBuilderBase& b) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* f32 = b.getFloatTy();
  llvm::Value* x = b.CreateBitCast(value, i32);
  llvm::Value* sign = b.CreateAnd(x, 0x80000000u);
  llvm::Value* exponent = b.CreateAnd(x, 0x7f800000);
  llvm::Value* min_normal = b.getInt32(0x38800000);  // 2^-14
  exponent = b.CreateSelect(b.CreateICmpULT(exponent, min_normal), min_normal, exponent);
  llvm::Value* magic =
      b.CreateBitCast(b.CreateOr(b.CreateAdd(exponent, b.getInt32(13 << 23)), 0x00400000), f32);
  llvm::Value* rounded = b.CreateFSub(b.CreateFAdd(value, magic), magic);
  llvm::Value* magnitude = b.CreateAnd(b.CreateBitCast(rounded, i32), 0x7fffffff);
  // 65504 is f16's largest finite value; NaN compares unordered.
  llvm::Value* overflow = b.CreateICmpUGT(magnitude, b.getInt32(0x477fe000));
  magnitude = b.CreateSelect(overflow, b.getInt32(0x7f800000), magnitude);
  llvm::Value* is_nan = b.CreateFCmpUNO(value, value);
  magnitude = b.CreateSelect(is_nan, b.getInt32(0x7fc00000), magnitude);
  return b.CreateBitCast(b.CreateOr(magnitude, sign), f32);
}

}  // namespace

bool IsSupportedElementType(PrimitiveType type) { return IsComputableElementType(type); }

absl::StatusOr<llvm::Type*> StorageType(PrimitiveType type, llvm::LLVMContext& context) {
  if (!IsSupportedElementType(type)) return UnsupportedType(type);
  switch (type) {
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      return llvm::Type::getInt16Ty(context);
    case PrimitiveType::F32:
      return llvm::Type::getFloatTy(context);
    case PrimitiveType::F64:
      return llvm::Type::getDoubleTy(context);
    default:
      return llvm::Type::getIntNTy(context, BitWidth(type));
  }
}

absl::StatusOr<llvm::Type*> ComputeType(PrimitiveType type, llvm::LLVMContext& context) {
  if (!IsSupportedElementType(type)) return UnsupportedType(type);
  switch (type) {
    case PrimitiveType::PRED:
      return llvm::Type::getInt1Ty(context);
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
    case PrimitiveType::F32:
      return llvm::Type::getFloatTy(context);
    case PrimitiveType::F64:
      return llvm::Type::getDoubleTy(context);
    default:
      return llvm::Type::getIntNTy(context, BitWidth(type));
  }
}

llvm::Value* EmitStorageToCompute(PrimitiveType type, llvm::Value* stored, llvm::IRBuilderBase& b) {
  switch (type) {
    case PrimitiveType::PRED:
      return b.CreateICmpNE(stored, llvm::ConstantInt::get(stored->getType(), 0));
    case PrimitiveType::F16:
      return HalfBitsToFloat(stored, b);
    case PrimitiveType::BF16:
      return BFloatBitsToFloat(stored, b);
    default:
      return stored;
  }
}

llvm::Value* EmitRoundToStorage(PrimitiveType type, llvm::Value* value, llvm::IRBuilderBase& b) {
  switch (type) {
    case PrimitiveType::F16:
      return RoundFloatToHalf(value, b);
    case PrimitiveType::BF16:
      return BFloatBitsToFloat(FloatToBFloatBits(value, b), b);
    default:
      return value;
  }
}

llvm::Value* EmitComputeToStorage(PrimitiveType type, llvm::Value* value, llvm::IRBuilderBase& b) {
  switch (type) {
    case PrimitiveType::PRED:
      return b.CreateZExt(value, b.getInt8Ty());
    case PrimitiveType::F16:
      return FloatToHalfBits(value, b);
    case PrimitiveType::BF16:
      return FloatToBFloatBits(value, b);
    default:
      return value;
  }
}

}  // namespace hmo::codegen
