#include "hmo/codegen/elemental_ir_emitter.h"

#include <limits>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "hmo/codegen/element_types.h"
#include "hmo/codegen/ir_array.h"
#include "hmo/codegen/loop_emitter.h"
#include "hmo/codegen/dynamic_slicing.h"
#include "hmo/codegen/window_loops.h"
#include "hmo/base/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Intrinsics.h"

namespace hmo::codegen {
namespace {

absl::Status Unsupported(const HloInstruction& instruction, std::string_view why) {
  return absl::UnimplementedError(
      "CPU codegen: " + std::string(HloOpcodeString(instruction.opcode())) + " instruction " +
      instruction.name() + ": " + std::string(why));
}

bool IsFloat(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32 ||
         t == PrimitiveType::F64;
}
bool IsUnsigned(PrimitiveType t) {
  return primitive_util::IsUnsignedIntegralType(t) || t == PrimitiveType::PRED;
}

// The index with a scalar operand's (empty) index when the operand is a
// scalar used with an array (select's predicate, clamp's bounds).
IrArray::Index IndexForOperand(const HloInstruction& operand, const IrArray::Index& index) {
  if (operand.shape().rank() == 0) return {};
  return index;
}

}  // namespace

absl::StatusOr<llvm::Value*> EmitIfThenElse(
    llvm::IRBuilderBase& b, llvm::Value* condition,
    const std::function<absl::StatusOr<llvm::Value*>()>& then_value,
    const std::function<absl::StatusOr<llvm::Value*>()>& else_value, std::string_view name) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  const std::string prefix(name);
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context, prefix + ".then", function);
  llvm::BasicBlock* else_block = llvm::BasicBlock::Create(context, prefix + ".else", function);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(context, prefix + ".merge", function);
  b.CreateCondBr(condition, then_block, else_block);
  b.SetInsertPoint(then_block);
  HMO_ASSIGN_OR_RETURN(llvm::Value * then_result, then_value());
  llvm::BasicBlock* then_end = b.GetInsertBlock();
  b.CreateBr(merge);
  b.SetInsertPoint(else_block);
  HMO_ASSIGN_OR_RETURN(llvm::Value * else_result, else_value());
  llvm::BasicBlock* else_end = b.GetInsertBlock();
  b.CreateBr(merge);
  b.SetInsertPoint(merge);
  llvm::PHINode* phi = b.CreatePHI(then_result->getType(), 2, prefix);
  phi->addIncoming(then_result, then_end);
  phi->addIncoming(else_result, else_end);
  return phi;
}

bool ElementalIrEmitter::IsElementalOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kNegate:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kTanh:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kTan:
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kSign:
    case HloOpcode::kNot:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz:
    case HloOpcode::kIsFinite:
    case HloOpcode::kErf:
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAtan2:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kCompare:
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
    case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kCopy:
    case HloOpcode::kReverse:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kMap:
    case HloOpcode::kConstant:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      return true;
    default:
      return false;
  }
}

llvm::Value* ElementalIrEmitter::CallIntrinsic(llvm::Intrinsic::ID id,
                                               absl::Span<llvm::Value* const> args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&module_, id, {args[0]->getType()});
  return b_.CreateCall(f, llvm::ArrayRef<llvm::Value*>(args.data(), args.size()));
}

llvm::Value* ElementalIrEmitter::CallLibm(const char* name_f32, const char* name_f64,
                                          absl::Span<llvm::Value* const> args) {
  llvm::Type* type = args[0]->getType();
  const char* name = type->isDoubleTy() ? name_f64 : name_f32;
  // A kernel may have been given a libm function's name (an instruction
  // called "tanh"): it yields the name, the declaration keeps it.
  if (llvm::Function* existing = module_.getFunction(name);
      existing && !existing->isDeclaration()) {
    existing->setName(std::string(name) + ".kernel");
  }
  std::vector<llvm::Type*> params(args.size(), type);
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(name, llvm::FunctionType::get(type, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setOnlyReadsMemory();
  }
  return b_.CreateCall(callee, llvm::ArrayRef<llvm::Value*>(args.data(), args.size()));
}

llvm::Value* ElementalIrEmitter::RoundToType(PrimitiveType type, llvm::Value* value) {
  if (type != PrimitiveType::F16 && type != PrimitiveType::BF16) return value;
  return EmitRoundToStorage(type, value, b_);
}

llvm::Value* ElementalIrEmitter::EmitFloatMax(llvm::Value* a, llvm::Value* b, bool is_max) {
  // NaN-propagating: a NaN in either operand wins.
  llvm::Value* a_wins = is_max ? b_.CreateFCmpOGE(a, b) : b_.CreateFCmpOLE(a, b);
  llvm::Value* a_is_nan = b_.CreateFCmpUNO(a, a);
  return b_.CreateSelect(b_.CreateOr(a_wins, a_is_nan), a, b);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitFloatUnary(HloOpcode opcode, llvm::Value* x) {
  llvm::Type* type = x->getType();
  auto one = llvm::ConstantFP::get(type, 1.0);
  switch (opcode) {
    case HloOpcode::kAbs:
      return CallIntrinsic(llvm::Intrinsic::fabs, {x});
    case HloOpcode::kNegate:
      return b_.CreateFNeg(x);
    case HloOpcode::kExp:
      return CallIntrinsic(llvm::Intrinsic::exp, {x});
    case HloOpcode::kExpm1:
      return CallLibm("expm1f", "expm1", {x});
    case HloOpcode::kLog:
      return CallIntrinsic(llvm::Intrinsic::log, {x});
    case HloOpcode::kLog1p:
      return CallLibm("log1pf", "log1p", {x});
    case HloOpcode::kLogistic: {
      llvm::Value* e = CallIntrinsic(llvm::Intrinsic::exp, {b_.CreateFNeg(x)});
      return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
    }
    case HloOpcode::kSqrt:
      return CallIntrinsic(llvm::Intrinsic::sqrt, {x});
    case HloOpcode::kRsqrt:
      return b_.CreateFDiv(one, CallIntrinsic(llvm::Intrinsic::sqrt, {x}));
    case HloOpcode::kCbrt:
      return CallLibm("cbrtf", "cbrt", {x});
    case HloOpcode::kTanh:
      return CallLibm("tanhf", "tanh", {x});
    case HloOpcode::kSin:
      return CallIntrinsic(llvm::Intrinsic::sin, {x});
    case HloOpcode::kCos:
      return CallIntrinsic(llvm::Intrinsic::cos, {x});
    case HloOpcode::kTan:
      return CallLibm("tanf", "tan", {x});
    case HloOpcode::kErf:
      return CallLibm("erff", "erf", {x});
    case HloOpcode::kFloor:
      return CallIntrinsic(llvm::Intrinsic::floor, {x});
    case HloOpcode::kCeil:
      return CallIntrinsic(llvm::Intrinsic::ceil, {x});
    case HloOpcode::kRoundNearestAfz:
      return CallIntrinsic(llvm::Intrinsic::round, {x});
    // rint rounds to nearest even under the default rounding mode, which
    // generated code never changes.
    case HloOpcode::kRoundNearestEven:
      return CallIntrinsic(llvm::Intrinsic::rint, {x});
    case HloOpcode::kSign: {
      // -1, +1, or x itself for ±0 and NaN.
      llvm::Value* zero = llvm::ConstantFP::get(type, 0.0);
      llvm::Value* magnitude_one = b_.CreateSelect(
          b_.CreateFCmpONE(x, zero), CallIntrinsic(llvm::Intrinsic::copysign, {one, x}), x);
      return magnitude_one;
    }
    default:
      return absl::UnimplementedError("CPU codegen: " + std::string(HloOpcodeString(opcode)) +
                                      " is not supported on floating-point values");
  }
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitIntegerUnary(HloOpcode opcode,
                                                                  PrimitiveType type,
                                                                  llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  switch (opcode) {
    case HloOpcode::kAbs:
      if (!is_signed) return x;
      return b_.CreateSelect(b_.CreateICmpSLT(x, zero), b_.CreateNeg(x), x);
    case HloOpcode::kNegate:
      return b_.CreateNeg(x);
    case HloOpcode::kNot:
      return b_.CreateNot(x);
    case HloOpcode::kPopulationCount:
      return CallIntrinsic(llvm::Intrinsic::ctpop, {x});
    case HloOpcode::kClz: {
      llvm::Function* f = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::ctlz, {t});
      return b_.CreateCall(f, {x, b_.getFalse()});
    }
    case HloOpcode::kSign: {
      if (!is_signed) return b_.CreateZExt(b_.CreateICmpNE(x, zero), t);
      llvm::Value* positive = b_.CreateZExt(b_.CreateICmpSGT(x, zero), t);
      llvm::Value* negative = b_.CreateZExt(b_.CreateICmpSLT(x, zero), t);
      return b_.CreateSub(positive, negative);
    }
    default:
      return absl::UnimplementedError("CPU codegen: " + std::string(HloOpcodeString(opcode)) +
                                      " is not supported on " +
                                      std::string(PrimitiveTypeName(type)));
  }
}

llvm::Value* ElementalIrEmitter::EmitReducePrecision(llvm::Value* x, int64_t exponent_bits,
                                                     int64_t mantissa_bits) {
  // Works on the bits of the compute type (f32 or f64); f16/bf16 values are
  // exact in f32, and reducing their f32 form gives the same value.
  const bool is_double = x->getType()->isDoubleTy();
  const unsigned bits = is_double ? 64 : 32;
  const int64_t src_mantissa = is_double ? 52 : 23;
  const int64_t src_exponent = is_double ? 11 : 8;
  llvm::Type* it = b_.getIntNTy(bits);
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(it, v); };
  llvm::Value* v = b_.CreateBitCast(x, it);
  if (mantissa_bits < src_mantissa) {
    const uint64_t shift = static_cast<uint64_t>(src_mantissa - mantissa_bits);
    const uint64_t last_kept = uint64_t{1} << shift;
    llvm::Value* kept_lsb = b_.CreateAnd(b_.CreateLShr(v, shift), c(1));
    llvm::Value* bias = b_.CreateAdd(kept_lsb, c((last_kept >> 1) - 1));
    v = b_.CreateAnd(b_.CreateAdd(v, bias), c(~(last_kept - 1)));
  }
  if (exponent_bits < src_exponent) {
    const uint64_t src_bias = (uint64_t{1} << (src_exponent - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    const uint64_t exponent_mask = ((uint64_t{1} << src_exponent) - 1) << src_mantissa;
    const uint64_t sign_mask = uint64_t{1} << (bits - 1);
    llvm::Value* exponent = b_.CreateAnd(v, c(exponent_mask));
    llvm::Value* overflows =
        b_.CreateICmpUGT(exponent, c((src_bias + reduced_bias) << src_mantissa));
    llvm::Value* underflows =
        b_.CreateICmpULE(exponent, c((src_bias - reduced_bias) << src_mantissa));
    llvm::Value* signed_zero = b_.CreateAnd(v, c(sign_mask));
    llvm::Value* signed_inf = b_.CreateOr(signed_zero, c(exponent_mask));
    v = b_.CreateSelect(overflows, signed_inf, b_.CreateSelect(underflows, signed_zero, v));
  }
  llvm::Value* result = b_.CreateBitCast(v, x->getType());
  if (mantissa_bits > 0) result = b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, result);
  return result;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitUnaryOp(const HloInstruction& instruction,
                                                             llvm::Value* x) {
  const PrimitiveType in_type = instruction.operand(0)->shape().element_type();
  const PrimitiveType out_type = instruction.shape().element_type();
  switch (instruction.opcode()) {
    case HloOpcode::kReducePrecision: {
      if (!IsFloat(in_type)) return Unsupported(instruction, "operand is not floating point");
      auto attribute = [&](std::string_view name) -> int64_t {
        std::optional<std::string_view> text = instruction.GetRawAttribute(name);
        return text ? std::stoll(std::string(*text)) : -1;
      };
      const int64_t exponent_bits = attribute("exponent_bits");
      const int64_t mantissa_bits = attribute("mantissa_bits");
      if (exponent_bits < 1 || mantissa_bits < 0) {
        return Unsupported(instruction, "needs exponent_bits >= 1 and mantissa_bits >= 0");
      }
      return RoundToType(out_type, EmitReducePrecision(x, exponent_bits, mantissa_bits));
    }
    case HloOpcode::kConvert:
      return EmitConvert(x, in_type, out_type);
    case HloOpcode::kBitcastConvert: {
      if (BitWidth(in_type) != BitWidth(out_type)) {
        return Unsupported(instruction, "bitcast-convert between different bit widths");
      }
      HMO_ASSIGN_OR_RETURN(llvm::Type * to_storage, StorageType(out_type, b_.getContext()));
      llvm::Value* bits = EmitComputeToStorage(in_type, x, b_);
      return EmitStorageToCompute(out_type, b_.CreateBitCast(bits, to_storage), b_);
    }
    case HloOpcode::kIsFinite: {
      if (!IsFloat(in_type)) return Unsupported(instruction, "operand is not floating point");
      llvm::Value* magnitude = CallIntrinsic(llvm::Intrinsic::fabs, {x});
      return b_.CreateFCmpOLT(magnitude, llvm::ConstantFP::getInfinity(x->getType()));
    }
    default:
      break;
  }
  if (IsFloat(in_type)) {
    HMO_ASSIGN_OR_RETURN(llvm::Value * v, EmitFloatUnary(instruction.opcode(), x));
    return RoundToType(out_type, v);
  }
  return EmitIntegerUnary(instruction.opcode(), in_type, x);
}

llvm::Value* ElementalIrEmitter::EmitIntegerPower(PrimitiveType type, llvm::Value* base,
                                                  llvm::Value* exponent) {
  // Square-and-multiply over every exponent bit, without branches.
  llvm::Type* t = base->getType();
  const unsigned bits = t->getIntegerBitWidth();
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* result = one;
  llvm::Value* square = base;
  for (unsigned k = 0; k < bits; ++k) {
    llvm::Value* bit = b_.CreateTrunc(b_.CreateLShr(exponent, k), b_.getInt1Ty());
    result = b_.CreateSelect(bit, b_.CreateMul(result, square), result);
    square = b_.CreateMul(square, square);
  }
  if (!primitive_util::IsSignedIntegralType(type)) return result;
  // A negative exponent gives 1 for base 1 and 0 otherwise.
  llvm::Value* negative = b_.CreateICmpSLT(exponent, llvm::ConstantInt::get(t, 0));
  llvm::Value* base_is_one = b_.CreateZExt(b_.CreateICmpEQ(base, one), t);
  return b_.CreateSelect(negative, base_is_one, result);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitFloatBinary(HloOpcode opcode, llvm::Value* lhs,
                                                                 llvm::Value* rhs) {
  switch (opcode) {
    case HloOpcode::kAdd:
      return b_.CreateFAdd(lhs, rhs);
    case HloOpcode::kSubtract:
      return b_.CreateFSub(lhs, rhs);
    case HloOpcode::kMultiply:
      return b_.CreateFMul(lhs, rhs);
    case HloOpcode::kDivide:
      return b_.CreateFDiv(lhs, rhs);
    case HloOpcode::kRemainder:
      return b_.CreateFRem(lhs, rhs);
    case HloOpcode::kPower:
      return CallIntrinsic(llvm::Intrinsic::pow, {lhs, rhs});
    case HloOpcode::kMaximum:
      return EmitFloatMax(lhs, rhs, /*is_max=*/true);
    case HloOpcode::kMinimum:
      return EmitFloatMax(lhs, rhs, /*is_max=*/false);
    case HloOpcode::kAtan2:
      return CallLibm("atan2f", "atan2", {lhs, rhs});
    default:
      return absl::UnimplementedError("CPU codegen: " + std::string(HloOpcodeString(opcode)) +
                                      " is not supported on floating-point values");
  }
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitIntegerBinary(HloOpcode opcode,
                                                                   PrimitiveType type,
                                                                   llvm::Value* lhs,
                                                                   llvm::Value* rhs) {
  llvm::Type* t = lhs->getType();
  const unsigned bits = t->getIntegerBitWidth();
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  switch (opcode) {
    case HloOpcode::kAdd:
      return b_.CreateAdd(lhs, rhs);
    case HloOpcode::kSubtract:
      return b_.CreateSub(lhs, rhs);
    case HloOpcode::kMultiply:
      return b_.CreateMul(lhs, rhs);
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder: {
      // x / 0 = -1 and x % 0 = x; INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0.
      llvm::Value* rhs_is_zero = b_.CreateICmpEQ(rhs, zero);
      llvm::Value* unsafe = rhs_is_zero;
      if (is_signed) {
        llvm::Value* overflow = b_.CreateAnd(
            b_.CreateICmpEQ(lhs, llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(bits))),
            b_.CreateICmpEQ(rhs, llvm::ConstantInt::getSigned(t, -1)));
        unsafe = b_.CreateOr(unsafe, overflow);
      }
      llvm::Value* safe_rhs = b_.CreateSelect(unsafe, one, rhs);
      if (opcode == HloOpcode::kDivide) {
        llvm::Value* q = is_signed ? b_.CreateSDiv(lhs, safe_rhs) : b_.CreateUDiv(lhs, safe_rhs);
        return b_.CreateSelect(rhs_is_zero, llvm::ConstantInt::getAllOnesValue(t), q);
      }
      llvm::Value* r = is_signed ? b_.CreateSRem(lhs, safe_rhs) : b_.CreateURem(lhs, safe_rhs);
      return b_.CreateSelect(rhs_is_zero, lhs, r);
    }
    case HloOpcode::kPower:
      return EmitIntegerPower(type, lhs, rhs);
    case HloOpcode::kMaximum:
      return b_.CreateSelect(is_signed ? b_.CreateICmpSGE(lhs, rhs) : b_.CreateICmpUGE(lhs, rhs),
                             lhs, rhs);
    case HloOpcode::kMinimum:
      return b_.CreateSelect(is_signed ? b_.CreateICmpSLE(lhs, rhs) : b_.CreateICmpULE(lhs, rhs),
                             lhs, rhs);
    case HloOpcode::kAnd:
      return b_.CreateAnd(lhs, rhs);
    case HloOpcode::kOr:
      return b_.CreateOr(lhs, rhs);
    case HloOpcode::kXor:
      return b_.CreateXor(lhs, rhs);
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic: {
      // Shift amounts outside [0, bits) (as unsigned) shift everything out:
      // 0, or the sign fill for the arithmetic right shift.
      llvm::Value* out_of_range = b_.CreateICmpUGE(rhs, llvm::ConstantInt::get(t, bits));
      llvm::Value* amount = b_.CreateSelect(out_of_range, zero, rhs);
      if (opcode == HloOpcode::kShiftLeft)
        return b_.CreateSelect(out_of_range, zero, b_.CreateShl(lhs, amount));
      if (opcode == HloOpcode::kShiftRightLogical) {
        return b_.CreateSelect(out_of_range, zero, b_.CreateLShr(lhs, amount));
      }
      llvm::Value* fill = b_.CreateAShr(lhs, llvm::ConstantInt::get(t, bits - 1));
      return b_.CreateSelect(out_of_range, fill, b_.CreateAShr(lhs, amount));
    }
    default:
      return absl::UnimplementedError("CPU codegen: " + std::string(HloOpcodeString(opcode)) +
                                      " is not supported on " +
                                      std::string(PrimitiveTypeName(type)));
  }
}

llvm::Value* ElementalIrEmitter::EmitTotalOrderKey(llvm::Value* value) {
  const unsigned bits = value->getType()->getPrimitiveSizeInBits();
  llvm::Value* x = b_.CreateBitCast(value, b_.getIntNTy(bits));
  llvm::Value* flip = b_.CreateLShr(b_.CreateAShr(x, bits - 1), 1);
  return b_.CreateXor(x, flip);
}

llvm::Value* ElementalIrEmitter::EmitCompare(const HloInstruction& instruction, PrimitiveType type,
                                             llvm::Value* lhs, llvm::Value* rhs) {
  const ComparisonDirection direction = instruction.comparison_direction();
  if (IsFloat(type)) {
    if (instruction.comparison_type() == ComparisonType::kFloatTotalOrder) {
      // Total order: map the bits to integers that compare like
      // -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
      lhs = EmitTotalOrderKey(lhs);
      rhs = EmitTotalOrderKey(rhs);
      type = PrimitiveType::S64;  // signed integer comparison below
    } else {
      switch (direction) {
        case ComparisonDirection::kEq:
          return b_.CreateFCmpOEQ(lhs, rhs);
        case ComparisonDirection::kNe:
          return b_.CreateFCmpUNE(lhs, rhs);
        case ComparisonDirection::kLt:
          return b_.CreateFCmpOLT(lhs, rhs);
        case ComparisonDirection::kLe:
          return b_.CreateFCmpOLE(lhs, rhs);
        case ComparisonDirection::kGt:
          return b_.CreateFCmpOGT(lhs, rhs);
        case ComparisonDirection::kGe:
          return b_.CreateFCmpOGE(lhs, rhs);
      }
    }
  }
  const bool is_signed = !IsUnsigned(type);
  switch (direction) {
    case ComparisonDirection::kEq:
      return b_.CreateICmpEQ(lhs, rhs);
    case ComparisonDirection::kNe:
      return b_.CreateICmpNE(lhs, rhs);
    case ComparisonDirection::kLt:
      return is_signed ? b_.CreateICmpSLT(lhs, rhs) : b_.CreateICmpULT(lhs, rhs);
    case ComparisonDirection::kLe:
      return is_signed ? b_.CreateICmpSLE(lhs, rhs) : b_.CreateICmpULE(lhs, rhs);
    case ComparisonDirection::kGt:
      return is_signed ? b_.CreateICmpSGT(lhs, rhs) : b_.CreateICmpUGT(lhs, rhs);
    case ComparisonDirection::kGe:
      return is_signed ? b_.CreateICmpSGE(lhs, rhs) : b_.CreateICmpUGE(lhs, rhs);
  }
  return nullptr;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitBinaryOp(const HloInstruction& instruction,
                                                              llvm::Value* lhs, llvm::Value* rhs) {
  const PrimitiveType in_type = instruction.operand(0)->shape().element_type();
  const PrimitiveType out_type = instruction.shape().element_type();
  if (instruction.opcode() == HloOpcode::kCompare)
    return EmitCompare(instruction, in_type, lhs, rhs);
  if (IsFloat(in_type)) {
    HMO_ASSIGN_OR_RETURN(llvm::Value * v, EmitFloatBinary(instruction.opcode(), lhs, rhs));
    return RoundToType(out_type, v);
  }
  return EmitIntegerBinary(instruction.opcode(), in_type, lhs, rhs);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitConvert(llvm::Value* value, PrimitiveType from,
                                                             PrimitiveType to) {
  HMO_ASSIGN_OR_RETURN(llvm::Type * to_type, ComputeType(to, b_.getContext()));
  HMO_RETURN_IF_ERROR(ComputeType(from, b_.getContext()).status());
  if (from == to) return value;
  if (to == PrimitiveType::PRED) {
    if (IsFloat(from)) return b_.CreateFCmpUNE(value, llvm::ConstantFP::get(value->getType(), 0.0));
    return b_.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
  }
  if (IsFloat(to)) {
    llvm::Value* converted;
    if (IsFloat(from)) {
      converted = b_.CreateFPCast(value, to_type);
    } else if (IsUnsigned(from)) {
      converted = b_.CreateUIToFP(value, to_type);
    } else {
      converted = b_.CreateSIToFP(value, to_type);
    }
    return RoundToType(to, converted);
  }
  // Integer destination.
  if (IsFloat(from)) {
    // Saturating, NaN -> 0.
    llvm::Intrinsic::ID id = primitive_util::IsUnsignedIntegralType(to)
                                 ? llvm::Intrinsic::fptoui_sat
                                 : llvm::Intrinsic::fptosi_sat;
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&module_, id, {to_type, value->getType()});
    return b_.CreateCall(f, {value});
  }
  return IsUnsigned(from) ? b_.CreateZExtOrTrunc(value, to_type)
                          : b_.CreateSExtOrTrunc(value, to_type);
}

std::string ConstantGlobalName(const HloInstruction& constant) {
  // Instruction names repeat across computations; unique ids do not.
  return "hmo.constant." + std::to_string(constant.unique_id());
}

absl::StatusOr<llvm::GlobalVariable*> ElementalIrEmitter::GetOrCreateConstantGlobal(
    const HloInstruction& constant) {
  const std::string name = ConstantGlobalName(constant);
  if (llvm::GlobalVariable* existing = module_.getGlobalVariable(name, /*AllowInternal=*/true)) {
    return existing;
  }
  if (!constant.has_literal() || constant.literal().is_elided()) {
    return Unsupported(constant, "the literal's values are elided");
  }
  const Literal& literal = constant.literal();
  const Shape& shape = constant.shape();
  if (!shape.IsArray() || !IsSupportedElementType(shape.element_type())) {
    return Unsupported(constant, "only arrays of supported element types are supported");
  }
  // Physical order: walk physical positions, map each to its row-major
  // (literal) position.
  const int64_t width = ByteWidth(shape.element_type());
  const IrArray physical(nullptr, shape);
  const std::vector<int64_t>& dims = shape.dimensions();
  std::vector<char> bytes(static_cast<size_t>(physical.element_count() * width));
  const std::vector<int64_t>& minor_to_major = physical.minor_to_major();
  std::vector<int64_t> index(dims.size(), 0);
  const std::vector<uint8_t>& raw = literal.raw_data();
  for (int64_t p = 0; p < physical.element_count(); ++p) {
    int64_t rest = p;
    for (int64_t dim : minor_to_major) {
      index[dim] = rest % dims[dim];
      rest /= dims[dim];
    }
    int64_t row_major = 0;
    for (size_t d = 0; d < dims.size(); ++d) row_major = row_major * dims[d] + index[d];
    for (int64_t k = 0; k < width; ++k)
      bytes[p * width + k] = static_cast<char>(raw[row_major * width + k]);
  }
  llvm::Constant* init =
      llvm::ConstantDataArray::getRaw(llvm::StringRef(bytes.data(), bytes.size()), bytes.size(),
                                      llvm::Type::getInt8Ty(module_.getContext()));
  // External: the executable points constant allocations at it (by name)
  // instead of copying the data into an arena.
  auto* global = new llvm::GlobalVariable(module_, init->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::ExternalLinkage, init, name);
  global->setAlignment(llvm::Align(64));
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return global;
}

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeConstantGenerator(
    const HloInstruction& constant) {
  const Shape& shape = constant.shape();
  if (shape.IsArray() && shape.rank() == 0 && constant.has_literal() &&
      !constant.literal().is_elided()) {
    const Literal& literal = constant.literal();
    HMO_ASSIGN_OR_RETURN(llvm::Type * type,
                         ComputeType(shape.element_type(), module_.getContext()));
    llvm::Value* value;
    if (type->isFloatingPointTy()) {
      value = llvm::ConstantFP::get(type, literal.GetAsDouble(0));
    } else if (shape.element_type() == PrimitiveType::U64) {
      value = llvm::ConstantInt::get(type, literal.GetAsUint64(0));
    } else {
      value = llvm::ConstantInt::get(type, static_cast<uint64_t>(literal.GetAsInt64(0)), true);
    }
    return ElementGenerator(
        [value](const IrArray::Index&) -> absl::StatusOr<llvm::Value*> { return value; });
  }
  HMO_ASSIGN_OR_RETURN(llvm::GlobalVariable * global, GetOrCreateConstantGlobal(constant));
  IrArray array(global, shape);
  return ElementGenerator(
      [this, array](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
        return array.EmitReadElement(index, b_);
      });
}

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeConcatenateGenerator(
    const HloInstruction& instruction, std::vector<ElementGenerator> operands) {
  const int64_t dim = instruction.concatenate_dimension();
  std::vector<int64_t> offsets;
  int64_t offset = 0;
  for (const HloInstruction* operand : instruction.operands()) {
    offsets.push_back(offset);
    offset += operand->shape().dimensions(static_cast<int>(dim));
  }
  return ElementGenerator([this, dim, offsets, operands, &instruction](
                              const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
    // A chain of branches: the first operand whose range holds index[dim].
    std::function<absl::StatusOr<llvm::Value*>(size_t)> from =
        [&](size_t k) -> absl::StatusOr<llvm::Value*> {
      IrArray::Index operand_index = index;
      operand_index[dim] = b_.CreateSub(index[dim], I64(b_, offsets[k]));
      if (k + 1 == operands.size()) return operands[k](operand_index);
      llvm::Value* in_this = b_.CreateICmpSLT(index[dim], I64(b_, offsets[k + 1]));
      return EmitIfThenElse(
          b_, in_this, [&]() { return operands[k](operand_index); }, [&]() { return from(k + 1); },
          "concat." + instruction.name());
    };
    return from(0);
  });
}

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakePadGenerator(
    const HloInstruction& instruction, std::vector<ElementGenerator> operands) {
  const PaddingConfig config = instruction.padding_config();
  const Shape operand_shape = instruction.operand(0)->shape();
  return ElementGenerator([this, config, operand_shape, operands, &instruction](
                              const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* in_bounds = b_.getTrue();
    IrArray::Index operand_index(index.size());
    for (size_t d = 0; d < index.size(); ++d) {
      const PaddingConfigDimension& pd = config.dimensions[d];
      llvm::Value* rel = b_.CreateSub(index[d], I64(b_, pd.edge_padding_low));
      const int64_t step = pd.interior_padding + 1;
      llvm::Value* position = rel;
      in_bounds = b_.CreateAnd(in_bounds, b_.CreateICmpSGE(rel, b_.getInt64(0)));
      if (step != 1) {
        in_bounds = b_.CreateAnd(
            in_bounds, b_.CreateICmpEQ(b_.CreateSRem(rel, I64(b_, step)), b_.getInt64(0)));
        position = b_.CreateSDiv(rel, I64(b_, step));
      }
      in_bounds = b_.CreateAnd(
          in_bounds,
          b_.CreateICmpSLT(position, I64(b_, operand_shape.dimensions(static_cast<int>(d)))));
      operand_index[d] = position;
    }
    return EmitIfThenElse(
        b_, in_bounds, [&]() { return operands[0](operand_index); },
        [&]() { return operands[1](IrArray::Index{}); }, "pad." + instruction.name());
  });
}

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeDynamicUpdateSliceGenerator(
    const HloInstruction& instruction, std::vector<ElementGenerator> operands) {
  return ElementGenerator(
      [this, operands, &instruction](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
        const Shape& shape = instruction.shape();
        const Shape& update_shape = instruction.operand(1)->shape();
        llvm::Value* in_update = b_.getTrue();
        IrArray::Index update_index(index.size());
        for (size_t d = 0; d < index.size(); ++d) {
          HMO_ASSIGN_OR_RETURN(llvm::Value * raw_start, operands[2 + d](IrArray::Index{}));
          const int64_t update_dim = update_shape.dimensions(static_cast<int>(d));
          llvm::Value* start = EmitClampedSliceStart(
              b_, raw_start, instruction.operand(2 + d)->shape().element_type(),
              shape.dimensions(static_cast<int>(d)) - update_dim);
          llvm::Value* rel = b_.CreateSub(index[d], start);
          in_update = b_.CreateAnd(in_update, b_.CreateICmpSGE(rel, b_.getInt64(0)));
          in_update = b_.CreateAnd(in_update, b_.CreateICmpSLT(rel, I64(b_, update_dim)));
          update_index[d] = rel;
        }
        return EmitIfThenElse(
            b_, in_update, [&]() { return operands[1](update_index); },
            [&]() { return operands[0](index); }, "dus." + instruction.name());
      });
}

llvm::AllocaInst* ElementalIrEmitter::EmitAccumulator(llvm::Value* init, std::string_view name) {
  llvm::BasicBlock& entry = b_.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> entry_builder(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* accumulator =
      entry_builder.CreateAlloca(init->getType(), nullptr, std::string(name));
  b_.CreateStore(init, accumulator);
  return accumulator;
}

absl::Status ElementalIrEmitter::EmitAccumulate(const HloInstruction& reduction,
                                                llvm::AllocaInst* accumulator, llvm::Value* value) {
  llvm::Value* so_far = b_.CreateLoad(accumulator->getAllocatedType(), accumulator);
  HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined,
                       EmitScalarComputation(*reduction.to_apply(), {so_far, value}));
  if (combined.size() != 1 || combined[0]->getType() != accumulator->getAllocatedType()) {
    return Unsupported(reduction, "to_apply does not return one value of the result's type");
  }
  b_.CreateStore(combined[0], accumulator);
  return absl::OkStatus();
}

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeReduceGenerator(
    const HloInstruction& instruction, std::vector<ElementGenerator> operands) {
  if (instruction.operand_count() != 2 || instruction.to_apply() == nullptr) {
    return Unsupported(instruction, "only a reduce of one input is elemental");
  }
  const HloInstruction* inst = &instruction;
  return ElementGenerator(
      [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
        const Shape& input_shape = inst->operand(0)->shape();
        const int64_t rank = input_shape.rank();
        std::vector<bool> reduced(rank, false);
        for (int64_t d : inst->dimensions()) reduced[d] = true;
        // The reduced dimensions, physically most major first (the
        // innermost loop walks memory in order).
        std::vector<int64_t> loop_dims;
        const std::vector<int64_t> minor_to_major =
            ShapeUtil::LayoutOrDefault(input_shape).minor_to_major();
        for (auto it = minor_to_major.rbegin(); it != minor_to_major.rend(); ++it) {
          if (reduced[*it]) loop_dims.push_back(*it);
        }
        std::vector<int64_t> sizes;
        for (int64_t d : loop_dims) sizes.push_back(input_shape.dimensions(d));
        HMO_ASSIGN_OR_RETURN(llvm::Value * init, operands[1](IrArray::Index{}));
        llvm::AllocaInst* accumulator = EmitAccumulator(init, "reduce.acc." + inst->name());
        HMO_RETURN_IF_ERROR(EmitLoopsOverSizes(
            b_, "reduce." + inst->name(), sizes,
            [&](const std::vector<llvm::Value*>& ivs) -> absl::Status {
              IrArray::Index input_index(rank);
              size_t kept = 0;
              for (int64_t d = 0; d < rank; ++d) {
                if (!reduced[d]) input_index[d] = index[kept++];
              }
              for (size_t k = 0; k < loop_dims.size(); ++k) input_index[loop_dims[k]] = ivs[k];
              HMO_ASSIGN_OR_RETURN(llvm::Value * value, operands[0](input_index));
              return EmitAccumulate(*inst, accumulator, value);
            }));
        return b_.CreateLoad(accumulator->getAllocatedType(), accumulator);
      });
}

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeReduceWindowGenerator(
    const HloInstruction& instruction, std::vector<ElementGenerator> operands) {
  if (instruction.operand_count() != 2 || instruction.to_apply() == nullptr ||
      !instruction.has_window() ||
      static_cast<int64_t>(instruction.window().dimensions.size()) !=
          instruction.operand(0)->shape().rank()) {
    return Unsupported(instruction, "only a reduce-window of one input is elemental");
  }
  const HloInstruction* inst = &instruction;
  return ElementGenerator(
      [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
        const Window& window = inst->window();
        std::vector<int64_t> sizes;
        for (const WindowDimension& d : window.dimensions) sizes.push_back(d.size);
        HMO_ASSIGN_OR_RETURN(llvm::Value * init, operands[1](IrArray::Index{}));
        llvm::AllocaInst* accumulator = EmitAccumulator(init, "reduce_window.acc." + inst->name());
        HMO_RETURN_IF_ERROR(EmitLoopsOverSizes(
            b_, "reduce_window." + inst->name(), sizes,
            [&](const std::vector<llvm::Value*>& w) -> absl::Status {
              const WindowRead read =
                  EmitWindowRead(b_, window, inst->operand(0)->shape(), inst->shape(), index, w);
              llvm::Function* function = b_.GetInsertBlock()->getParent();
              llvm::BasicBlock* inside =
                  llvm::BasicBlock::Create(b_.getContext(), "reduce_window.in", function);
              llvm::BasicBlock* after =
                  llvm::BasicBlock::Create(b_.getContext(), "reduce_window.after", function);
              b_.CreateCondBr(read.valid, inside, after);
              b_.SetInsertPoint(inside);
              HMO_ASSIGN_OR_RETURN(llvm::Value * value, operands[0](read.index));
              HMO_RETURN_IF_ERROR(EmitAccumulate(*inst, accumulator, value));
              b_.CreateBr(after);
              b_.SetInsertPoint(after);
              return absl::OkStatus();
            }));
        return b_.CreateLoad(accumulator->getAllocatedType(), accumulator);
      });
}

absl::StatusOr<ElementGenerator> ElementalIrEmitter::MakeGenerator(
    const HloInstruction& instruction, std::vector<ElementGenerator> operands) {
  const HloOpcode opcode = instruction.opcode();
  if (!IsElementalOpcode(opcode)) return Unsupported(instruction, "not an elemental operation");
  if (!instruction.shape().IsArray()) return Unsupported(instruction, "tuple-shaped result");
  HMO_RETURN_IF_ERROR(
      ComputeType(instruction.shape().element_type(), module_.getContext()).status());
  const HloInstruction* inst = &instruction;
  switch (opcode) {
    case HloOpcode::kConstant:
      return MakeConstantGenerator(instruction);
    case HloOpcode::kCompare:
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAtan2:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      return ElementGenerator(
          [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            HMO_ASSIGN_OR_RETURN(llvm::Value * lhs,
                                 operands[0](IndexForOperand(*inst->operand(0), index)));
            HMO_ASSIGN_OR_RETURN(llvm::Value * rhs,
                                 operands[1](IndexForOperand(*inst->operand(1), index)));
            return EmitBinaryOp(*inst, lhs, rhs);
          });
    case HloOpcode::kSelect:
      return ElementGenerator(
          [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            HMO_ASSIGN_OR_RETURN(llvm::Value * pred,
                                 operands[0](IndexForOperand(*inst->operand(0), index)));
            HMO_ASSIGN_OR_RETURN(llvm::Value * on_true, operands[1](index));
            HMO_ASSIGN_OR_RETURN(llvm::Value * on_false, operands[2](index));
            return b_.CreateSelect(pred, on_true, on_false);
          });
    case HloOpcode::kClamp:
      return ElementGenerator(
          [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            HMO_ASSIGN_OR_RETURN(llvm::Value * lo,
                                 operands[0](IndexForOperand(*inst->operand(0), index)));
            HMO_ASSIGN_OR_RETURN(llvm::Value * x, operands[1](index));
            HMO_ASSIGN_OR_RETURN(llvm::Value * hi,
                                 operands[2](IndexForOperand(*inst->operand(2), index)));
            const PrimitiveType type = inst->shape().element_type();
            if (IsFloat(type)) return EmitFloatMax(EmitFloatMax(x, lo, true), hi, false);
            HMO_ASSIGN_OR_RETURN(llvm::Value * raised,
                                 EmitIntegerBinary(HloOpcode::kMaximum, type, x, lo));
            return EmitIntegerBinary(HloOpcode::kMinimum, type, raised, hi);
          });
    case HloOpcode::kBroadcast:
      return ElementGenerator(
          [inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            IrArray::Index operand_index;
            for (int64_t d : inst->dimensions()) operand_index.push_back(index[d]);
            return operands[0](operand_index);
          });
    case HloOpcode::kIota:
      return ElementGenerator(
          [this, inst](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            return EmitConvert(index[inst->iota_dimension()], PrimitiveType::S64,
                               inst->shape().element_type());
          });
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      const PrimitiveType in_type = inst->operand(0)->shape().element_type();
      const PrimitiveType out_type = inst->shape().element_type();
      // XLA's bitcast may reinterpret the element type at the same width
      // (sort keys, top-k): the bits move as they are.
      if (in_type != out_type &&
          (opcode == HloOpcode::kReshape || BitWidth(in_type) != BitWidth(out_type))) {
        return Unsupported(instruction, "changes the element type");
      }
      // reshape keeps the row-major order; bitcast the physical one.
      Shape out = inst->shape();
      Shape in = inst->operand(0)->shape();
      if (opcode == HloOpcode::kReshape) {
        out = ShapeUtil::MakeShapeWithDescendingLayout(out.element_type(), out.dimensions());
        in = ShapeUtil::MakeShapeWithDescendingLayout(in.element_type(), in.dimensions());
      }
      IrArray out_order(nullptr, out), in_order(nullptr, in);
      return ElementGenerator([this, out_order, in_order, operands, in_type, out_type](
                                  const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
        HMO_ASSIGN_OR_RETURN(llvm::Value * x, operands[0](in_order.EmitMultiIndex(
                                                  out_order.EmitLinearIndex(index, b_), b_)));
        if (in_type == out_type) return x;
        HMO_ASSIGN_OR_RETURN(llvm::Type * to_storage, StorageType(out_type, b_.getContext()));
        return EmitStorageToCompute(
            out_type, b_.CreateBitCast(EmitComputeToStorage(in_type, x, b_), to_storage), b_);
      });
    }
    case HloOpcode::kTranspose:
      return ElementGenerator(
          [inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            IrArray::Index operand_index(index.size());
            for (size_t i = 0; i < index.size(); ++i) operand_index[inst->dimensions(i)] = index[i];
            return operands[0](operand_index);
          });
    case HloOpcode::kCopy:
      return operands[0];
    case HloOpcode::kReverse:
      return ElementGenerator(
          [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            IrArray::Index operand_index = index;
            for (int64_t d : inst->dimensions()) {
              operand_index[d] = b_.CreateSub(
                  I64(b_, inst->shape().dimensions(static_cast<int>(d)) - 1), index[d]);
            }
            return operands[0](operand_index);
          });
    case HloOpcode::kSlice:
      return ElementGenerator(
          [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            IrArray::Index operand_index(index.size());
            for (size_t d = 0; d < index.size(); ++d) {
              llvm::Value* v = index[d];
              if (inst->slice_strides(d) != 1) v = b_.CreateMul(v, I64(b_, inst->slice_strides(d)));
              if (inst->slice_starts(d) != 0) v = b_.CreateAdd(v, I64(b_, inst->slice_starts(d)));
              operand_index[d] = v;
            }
            return operands[0](operand_index);
          });
    case HloOpcode::kDynamicSlice:
      return ElementGenerator([this, inst, operands](
                                  const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
        const Shape& operand_shape = inst->operand(0)->shape();
        // Starts are scalars (operands 1..rank), or one rank-1 array.
        const bool vector_starts =
            inst->operand_count() == 2 && inst->operand(1)->shape().rank() == 1;
        IrArray::Index operand_index(index.size());
        for (size_t d = 0; d < index.size(); ++d) {
          const HloInstruction* start_operand = inst->operand(vector_starts ? 1 : 1 + d);
          HMO_ASSIGN_OR_RETURN(llvm::Value * raw,
                               vector_starts
                                   ? operands[1](IrArray::Index{I64(b_, static_cast<int64_t>(d))})
                                   : operands[1 + d](IrArray::Index{}));
          llvm::Value* start =
              EmitClampedSliceStart(b_, raw, start_operand->shape().element_type(),
                                    operand_shape.dimensions(static_cast<int>(d)) -
                                        inst->shape().dimensions(static_cast<int>(d)));
          operand_index[d] = b_.CreateAdd(start, index[d]);
        }
        return operands[0](operand_index);
      });
    case HloOpcode::kDynamicUpdateSlice:
      if (inst->operand_count() != 2 + inst->shape().rank()) {
        return Unsupported(instruction, "expects one scalar start index per dimension");
      }
      return MakeDynamicUpdateSliceGenerator(instruction, std::move(operands));
    case HloOpcode::kConcatenate:
      return MakeConcatenateGenerator(instruction, std::move(operands));
    case HloOpcode::kPad:
      return MakePadGenerator(instruction, std::move(operands));
    case HloOpcode::kReduce:
      return MakeReduceGenerator(instruction, std::move(operands));
    case HloOpcode::kReduceWindow:
      return MakeReduceWindowGenerator(instruction, std::move(operands));
    case HloOpcode::kMap:
      return ElementGenerator(
          [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            std::vector<llvm::Value*> args;
            for (const ElementGenerator& operand : operands) {
              HMO_ASSIGN_OR_RETURN(llvm::Value * v, operand(index));
              args.push_back(v);
            }
            HMO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results,
                                 EmitScalarComputation(*inst->to_apply(), args));
            return results.at(0);
          });
    default:
      // The remaining elemental opcodes are unary.
      return ElementGenerator(
          [this, inst, operands](const IrArray::Index& index) -> absl::StatusOr<llvm::Value*> {
            HMO_ASSIGN_OR_RETURN(llvm::Value * x, operands[0](index));
            return EmitUnaryOp(*inst, x);
          });
  }
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitScalarComputation(
    const HloComputation& computation, absl::Span<llvm::Value* const> args) {
  if (static_cast<int64_t>(args.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError("CPU codegen: computation " + computation.name() + " takes " +
                                      std::to_string(computation.num_parameters()) +
                                      " arguments, got " + std::to_string(args.size()));
  }
  absl::flat_hash_map<const HloInstruction*, llvm::Value*> values;
  for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
        values[instruction] = args[instruction->parameter_number()];
        continue;
      case HloOpcode::kTuple:
        continue;  // only as the root, read below
      default:
        break;
    }
    if (!instruction->shape().IsArray() || instruction->shape().rank() != 0) {
      return Unsupported(*instruction,
                         "only scalar instructions are supported in " + computation.name());
    }
    std::vector<ElementGenerator> operand_generators;
    for (const HloInstruction* operand : instruction->operands()) {
      auto it = values.find(operand);
      if (it == values.end()) return Unsupported(*instruction, "operand is not a scalar value");
      llvm::Value* v = it->second;
      operand_generators.push_back(
          [v](const IrArray::Index&) -> absl::StatusOr<llvm::Value*> { return v; });
    }
    HMO_ASSIGN_OR_RETURN(ElementGenerator generator,
                         MakeGenerator(*instruction, std::move(operand_generators)));
    HMO_ASSIGN_OR_RETURN(values[instruction], generator(IrArray::Index{}));
  }
  const HloInstruction* root = computation.root_instruction();
  std::vector<llvm::Value*> results;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* element : root->operands()) results.push_back(values.at(element));
  } else {
    results.push_back(values.at(root));
  }
  return results;
}

}  // namespace hmo::codegen
