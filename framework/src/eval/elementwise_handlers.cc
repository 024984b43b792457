// Elementwise families: unary and binary arithmetic, compare, select, clamp,
// convert, bitcast-convert and iota. Every loop runs over the raw element
// bytes, one typed load and store per element; the per-element meaning of
// each opcode lives in elementwise_apply.h.

#include <cstring>

#include "absl/strings/str_cat.h"
#include "element_types.h"
#include "elementwise_apply.h"
#include "elementwise_semantics.h"
#include "hmo/ir/shape.h"
#include "hmo/ir/hlo_opcode_class.h"
#include "index_space.h"
#include "opcode_handlers.h"

namespace hmo::eval_internal {
namespace {

absl::Status OpcodeNotDefinedOnType(const HloInstruction& instr, PrimitiveType type) {
  return absl::UnimplementedError(absl::StrCat(
      "evaluator: ", std::string(HloOpcodeString(instr.opcode())), " is not defined on ",
      std::string(PrimitiveTypeName(type)), " (instruction ", instr.name(), ")"));
}

// Index of the element of `operand` that output element `i` reads: operands
// of select and clamp may be scalars standing for every element.
inline int64_t ScalarOrSame(const Literal& operand, int64_t i) {
  return operand.shape().rank() == 0 ? 0 : i;
}

}  // namespace

// The classes come from the opcode table (hlo_opcode_class.h); what is left out
// is what these two handlers do not compute: compare has its own handler (the
// result is PRED), complex and reduce-precision are not implemented.
bool IsElementwiseUnaryOpcode(HloOpcode opcode) {
  return HloOpcodeClassOf(opcode) == HloOpcodeClass::kElementwiseUnary &&
         opcode != HloOpcode::kReducePrecision;
}

bool IsElementwiseBinaryOpcode(HloOpcode opcode) {
  return HloOpcodeClassOf(opcode) == HloOpcodeClass::kElementwiseBinary &&
         opcode != HloOpcode::kCompare && opcode != HloOpcode::kComplex;
}

absl::StatusOr<Literal> HandleElementwiseUnary(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  const HloOpcode op = instr.opcode();
  const int64_t n = in.element_count();
  const uint8_t* src = RawBytes(in);
  uint8_t* dst = MutableRawBytes(&out);
  absl::Status status = SwitchOnElementType(in.element_type(), instr.name(), [&](auto tag) {
    constexpr PrimitiveType kT = decltype(tag)::value;
    using N = NativeOf<kT>;
    if (op == HloOpcode::kIsFinite) {
      if constexpr (!kIsFloat<N>) {
        return OpcodeNotDefinedOnType(instr, kT);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          StoreElement<PrimitiveType::PRED>(dst, i, std::isfinite(LoadElement<kT>(src, i)));
        }
        return absl::OkStatus();
      }
    }
    N probe;
    if (!ApplyUnaryOp<N>(op, N{}, &probe)) return OpcodeNotDefinedOnType(instr, kT);
    for (int64_t i = 0; i < n; ++i) {
      N result{};
      ApplyUnaryOp<N>(op, LoadElement<kT>(src, i), &result);
      StoreElement<kT>(dst, i, result);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<Literal> HandleElementwiseBinary(const HloInstruction& instr, Operands operands) {
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  Literal out(instr.shape());
  const HloOpcode op = instr.opcode();
  const int64_t n = out.element_count();
  const uint8_t* a = RawBytes(lhs);
  const uint8_t* b = RawBytes(rhs);
  uint8_t* dst = MutableRawBytes(&out);
  absl::Status status = SwitchOnElementType(lhs.element_type(), instr.name(), [&](auto tag) {
    constexpr PrimitiveType kT = decltype(tag)::value;
    using N = NativeOf<kT>;
    N probe;
    if (!ApplyBinaryOp<N>(op, N{}, N{1}, &probe)) return OpcodeNotDefinedOnType(instr, kT);
    // The most common f32 cases get loops without the per-element opcode
    // switch.
    if constexpr (kT == PrimitiveType::F32) {
      auto run = [&](auto fn) {
        for (int64_t i = 0; i < n; ++i) {
          StoreElement<kT>(dst, i, fn(LoadElement<kT>(a, i), LoadElement<kT>(b, i)));
        }
        return absl::OkStatus();
      };
      if (op == HloOpcode::kAdd) return run([](float x, float y) { return x + y; });
      if (op == HloOpcode::kMultiply) return run([](float x, float y) { return x * y; });
      if (op == HloOpcode::kSubtract) return run([](float x, float y) { return x - y; });
    }
    for (int64_t i = 0; i < n; ++i) {
      N result{};
      ApplyBinaryOp<N>(op, LoadElement<kT>(a, i), LoadElement<kT>(b, i), &result);
      StoreElement<kT>(dst, i, result);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<Literal> HandleCompare(const HloInstruction& instr, Operands operands) {
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  Literal out(instr.shape());
  const int64_t n = out.element_count();
  const ComparisonDirection direction = instr.comparison_direction();
  const bool total_order = instr.comparison_type() == ComparisonType::kFloatTotalOrder;
  const uint8_t* a = RawBytes(lhs);
  const uint8_t* b = RawBytes(rhs);
  uint8_t* dst = MutableRawBytes(&out);
  absl::Status status = SwitchOnElementType(lhs.element_type(), instr.name(), [&](auto tag) {
    constexpr PrimitiveType kT = decltype(tag)::value;
    for (int64_t i = 0; i < n; ++i) {
      bool result = CompareElements(LoadElement<kT>(a, i), LoadElement<kT>(b, i), direction,
                                    total_order);
      StoreElement<PrimitiveType::PRED>(dst, i, result);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<Literal> HandleSelect(const HloInstruction& instr, Operands operands) {
  const Literal& pred = *operands[0];
  const Literal& on_true = *operands[1];
  const Literal& on_false = *operands[2];
  Literal out(instr.shape());
  const int64_t n = out.element_count();
  const int64_t width = ByteWidth(out.element_type());
  const uint8_t* p = RawBytes(pred);
  uint8_t* dst = MutableRawBytes(&out);
  for (int64_t i = 0; i < n; ++i) {
    const Literal& chosen = p[ScalarOrSame(pred, i)] != 0 ? on_true : on_false;
    std::memcpy(dst + i * width, RawBytes(chosen) + ScalarOrSame(chosen, i) * width,
                static_cast<size_t>(width));
  }
  return out;
}

absl::StatusOr<Literal> HandleClamp(const HloInstruction& instr, Operands operands) {
  const Literal& low = *operands[0];
  const Literal& value = *operands[1];
  const Literal& high = *operands[2];
  Literal out(instr.shape());
  const int64_t n = out.element_count();
  uint8_t* dst = MutableRawBytes(&out);
  absl::Status status = SwitchOnElementType(value.element_type(), instr.name(), [&](auto tag) {
    constexpr PrimitiveType kT = decltype(tag)::value;
    using N = NativeOf<kT>;
    if constexpr (kIsBool<N>) {
      return OpcodeNotDefinedOnType(instr, kT);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        N lo = LoadElement<kT>(RawBytes(low), ScalarOrSame(low, i));
        N hi = LoadElement<kT>(RawBytes(high), ScalarOrSame(high, i));
        N x = LoadElement<kT>(RawBytes(value), ScalarOrSame(value, i));
        N clamped;
        ApplyBinaryOp<N>(HloOpcode::kMaximum, x, lo, &clamped);
        ApplyBinaryOp<N>(HloOpcode::kMinimum, clamped, hi, &clamped);
        StoreElement<kT>(dst, i, clamped);
      }
      return absl::OkStatus();
    }
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<Literal> HandleConvert(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  const int64_t n = in.element_count();
  const uint8_t* src = RawBytes(in);
  uint8_t* dst = MutableRawBytes(&out);
  const PrimitiveType to_type = out.element_type();
  absl::Status status = SwitchOnElementType(in.element_type(), instr.name(), [&](auto from_tag) {
    constexpr PrimitiveType kFrom = decltype(from_tag)::value;
    using From = NativeOf<kFrom>;
    return SwitchOnElementType(to_type, instr.name(), [&](auto to_tag) {
      constexpr PrimitiveType kTo = decltype(to_tag)::value;
      using To = NativeOf<kTo>;
      for (int64_t i = 0; i < n; ++i) {
        From x = LoadElement<kFrom>(src, i);
        if constexpr (kIsNarrowFloat<kTo> && sizeof(From) == 8) {
          // Going through float first would round twice; round once from
          // the (exact or nearest) double.
          uint16_t bits = primitive_util::DoubleToNarrowFloatBits(kTo, static_cast<double>(x));
          std::memcpy(dst + 2 * i, &bits, 2);
        } else {
          StoreElement<kTo>(dst, i, ConvertElement<To, From>(x));
        }
      }
      return absl::OkStatus();
    });
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<Literal> HandleBitcastConvert(const HloInstruction& instr, Operands operands) {
  const Literal& in = *operands[0];
  Literal out(instr.shape());
  // Elements are little-endian and row-major, so a bitcast-convert between
  // equal or different widths (the latter adding or dropping a minor
  // dimension) keeps the byte sequence.
  if (in.raw_data().size() != out.raw_data().size() ||
      primitive_util::IsSubByteType(in.element_type()) ||
      primitive_util::IsSubByteType(out.element_type())) {
    return absl::UnimplementedError(absl::StrCat("evaluator: bitcast-convert ", instr.name(),
                                                 " from ", in.shape().ToString(false), " to ",
                                                 out.shape().ToString(false),
                                                 " does not keep the byte size"));
  }
  std::memcpy(MutableRawBytes(&out), RawBytes(in), in.raw_data().size());
  return out;
}

absl::StatusOr<Literal> HandleIota(const HloInstruction& instr) {
  Literal out(instr.shape());
  const std::vector<int64_t>& dims = out.shape().dimensions();
  const int64_t iota_dim = instr.iota_dimension();
  uint8_t* dst = MutableRawBytes(&out);
  absl::Status status = SwitchOnElementType(out.element_type(), instr.name(), [&](auto tag) {
    constexpr PrimitiveType kT = decltype(tag)::value;
    int64_t i = 0;
    ForEachIndex(dims, [&](absl::Span<const int64_t> index) {
      StoreElement<kT>(dst, i++, ConvertElement<NativeOf<kT>, int64_t>(index[iota_dim]));
    });
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

}  // namespace hmo::eval_internal
