#include "hmo/ir/hlo_opcode.h"

#include "hmo/ir/hlo_opcode_class.h"

#include <array>
#include <string>
#include <unordered_map>

namespace hmo {
namespace {

struct OpcodeInfo {
  std::string_view name;
  int arity;
};

constexpr std::array<OpcodeInfo, kHloOpcodeCount> kOpcodes = {{
#define HMO_OPCODE_INFO(enum_name, text, arity) {text, arity},
    HMO_HLO_OPCODE_LIST(HMO_OPCODE_INFO)
#undef HMO_OPCODE_INFO
}};

const std::unordered_map<std::string_view, HloOpcode>& NameMap() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, HloOpcode>();
    for (int i = 0; i < kHloOpcodeCount; ++i) m->emplace(kOpcodes[i].name, static_cast<HloOpcode>(i));
    // Accepted spellings besides XLA's text names.
    m->emplace("clz", HloOpcode::kClz);
    return m;
  }();
  return *map;
}

}  // namespace

std::string_view HloOpcodeString(HloOpcode opcode) { return kOpcodes[static_cast<int>(opcode)].name; }

std::optional<HloOpcode> StringToHloOpcode(std::string_view name) {
  const auto& map = NameMap();
  auto it = map.find(name);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

std::optional<int> HloOpcodeArity(HloOpcode opcode) {
  int a = kOpcodes[static_cast<int>(opcode)].arity;
  if (a < 0) return std::nullopt;
  return a;
}

namespace {

struct OpcodeTraits {
  HloOpcodeClass op_class = HloOpcodeClass::kOther;
  uint8_t flags = 0;
};

struct ClassEntry {
  HloOpcode opcode;
  HloOpcodeClass op_class;
  uint8_t flags;
};

using C = HloOpcodeClass;
using O = HloOpcode;
constexpr uint8_t kFloat = kFloatingOnly;
constexpr uint8_t kStart = kStartsAsyncPair;
constexpr uint8_t kDone = kFinishesAsyncPair;

// Every opcode that is not HloOpcodeClass::kOther or has a flag; unlisted
// opcodes are kOther without flags.
constexpr ClassEntry kClassEntries[] = {
    // Unary elementwise over floating-point or complex values.
    {O::kAcos, C::kElementwiseUnary, kFloat},
    {O::kAcosh, C::kElementwiseUnary, kFloat},
    {O::kAsin, C::kElementwiseUnary, kFloat},
    {O::kAsinh, C::kElementwiseUnary, kFloat},
    {O::kAtanh, C::kElementwiseUnary, kFloat},
    {O::kCbrt, C::kElementwiseUnary, kFloat},
    {O::kCos, C::kElementwiseUnary, kFloat},
    {O::kCosh, C::kElementwiseUnary, kFloat},
    {O::kExp, C::kElementwiseUnary, kFloat},
    {O::kExpm1, C::kElementwiseUnary, kFloat},
    {O::kLog, C::kElementwiseUnary, kFloat},
    {O::kLog1p, C::kElementwiseUnary, kFloat},
    {O::kLogistic, C::kElementwiseUnary, kFloat},
    {O::kRsqrt, C::kElementwiseUnary, kFloat},
    {O::kSin, C::kElementwiseUnary, kFloat},
    {O::kSinh, C::kElementwiseUnary, kFloat},
    {O::kSqrt, C::kElementwiseUnary, kFloat},
    {O::kTan, C::kElementwiseUnary, kFloat},
    {O::kTanh, C::kElementwiseUnary, kFloat},
    {O::kAtan, C::kElementwiseUnary, kFloat},
    // Other unary elementwise (type rules in ShapeInference::InferUnaryOpShape).
    {O::kAbs, C::kElementwiseUnary, 0},
    {O::kCeil, C::kElementwiseUnary, 0},
    {O::kClz, C::kElementwiseUnary, 0},
    {O::kErf, C::kElementwiseUnary, 0},
    {O::kFloor, C::kElementwiseUnary, 0},
    {O::kImag, C::kElementwiseUnary, 0},
    {O::kIsFinite, C::kElementwiseUnary, 0},
    {O::kNegate, C::kElementwiseUnary, 0},
    {O::kNot, C::kElementwiseUnary, 0},
    {O::kPopulationCount, C::kElementwiseUnary, 0},
    {O::kReal, C::kElementwiseUnary, 0},
    {O::kReducePrecision, C::kElementwiseUnary, 0},
    {O::kRoundNearestAfz, C::kElementwiseUnary, 0},
    {O::kRoundNearestEven, C::kElementwiseUnary, 0},
    {O::kSign, C::kElementwiseUnary, 0},
    // Binary elementwise.
    {O::kAdd, C::kElementwiseBinary, 0},
    {O::kAnd, C::kElementwiseBinary, 0},
    {O::kAtan2, C::kElementwiseBinary, 0},
    {O::kCompare, C::kElementwiseBinary, 0},
    {O::kComplex, C::kElementwiseBinary, 0},
    {O::kDivide, C::kElementwiseBinary, 0},
    {O::kMaximum, C::kElementwiseBinary, 0},
    {O::kMinimum, C::kElementwiseBinary, 0},
    {O::kMultiply, C::kElementwiseBinary, 0},
    {O::kOr, C::kElementwiseBinary, 0},
    {O::kPower, C::kElementwiseBinary, 0},
    {O::kRemainder, C::kElementwiseBinary, 0},
    {O::kShiftLeft, C::kElementwiseBinary, 0},
    {O::kShiftRightArithmetic, C::kElementwiseBinary, 0},
    {O::kShiftRightLogical, C::kElementwiseBinary, 0},
    {O::kSubtract, C::kElementwiseBinary, 0},
    {O::kXor, C::kElementwiseBinary, 0},
    {O::kClamp, C::kElementwiseTernary, 0},
    {O::kSelect, C::kElementwiseTernary, 0},
    {O::kBitcastConvert, C::kElementwiseConversion, 0},
    {O::kConvert, C::kElementwiseConversion, 0},
    {O::kStochasticConvert, C::kElementwiseConversion, 0},
    {O::kCopy, C::kElementwiseOther, 0},
    {O::kMap, C::kElementwiseOther, 0},
    // Collectives.
    {O::kAllGather, C::kCollective, 0},
    {O::kAllGatherStart, C::kCollective, kStart},
    {O::kAllReduce, C::kCollective, 0},
    {O::kAllReduceStart, C::kCollective, kStart},
    {O::kAllToAll, C::kCollective, 0},
    {O::kCollectiveBroadcast, C::kCollective, 0},
    {O::kCollectivePermute, C::kCollective, 0},
    {O::kCollectivePermuteStart, C::kCollective, kStart},
    {O::kRaggedAllToAll, C::kCollective, 0},
    {O::kReduceScatter, C::kCollective, 0},
    // The other halves of asynchronous pairs.
    {O::kAsyncStart, C::kOther, kStart},
    {O::kCopyStart, C::kOther, kStart},
    {O::kSend, C::kOther, kStart},
    {O::kRecv, C::kOther, kStart},
    {O::kAllGatherDone, C::kOther, kDone},
    {O::kAllReduceDone, C::kOther, kDone},
    {O::kAsyncDone, C::kOther, kDone},
    {O::kCollectivePermuteDone, C::kOther, kDone},
    {O::kCopyDone, C::kOther, kDone},
    {O::kSendDone, C::kOther, kDone},
    {O::kRecvDone, C::kOther, kDone},
};

constexpr std::array<OpcodeTraits, kHloOpcodeCount> BuildTraits() {
  std::array<OpcodeTraits, kHloOpcodeCount> traits{};
  for (const ClassEntry& entry : kClassEntries) {
    traits[static_cast<int>(entry.opcode)] = {entry.op_class, entry.flags};
  }
  return traits;
}

constexpr std::array<OpcodeTraits, kHloOpcodeCount> kTraits = BuildTraits();

}  // namespace

HloOpcodeClass HloOpcodeClassOf(HloOpcode opcode) {
  return kTraits[static_cast<int>(opcode)].op_class;
}

bool HloOpcodeHasFlag(HloOpcode opcode, HloOpcodeFlag flag) {
  return (kTraits[static_cast<int>(opcode)].flags & flag) != 0;
}

bool IsFloatingUnaryOpcode(HloOpcode opcode) { return HloOpcodeHasFlag(opcode, kFloatingOnly); }

bool IsElementwiseOpcode(HloOpcode opcode) {
  switch (HloOpcodeClassOf(opcode)) {
    case HloOpcodeClass::kElementwiseUnary:
    case HloOpcodeClass::kElementwiseBinary:
    case HloOpcodeClass::kElementwiseTernary:
    case HloOpcodeClass::kElementwiseConversion:
    case HloOpcodeClass::kElementwiseOther:
      return true;
    case HloOpcodeClass::kOther:
    case HloOpcodeClass::kCollective:
      return false;
  }
  return false;
}

bool IsAsyncStartOpcode(HloOpcode opcode) { return HloOpcodeHasFlag(opcode, kStartsAsyncPair); }

bool IsAsyncDoneOpcode(HloOpcode opcode) { return HloOpcodeHasFlag(opcode, kFinishesAsyncPair); }

bool IsCollectiveOpcode(HloOpcode opcode) {
  return HloOpcodeClassOf(opcode) == HloOpcodeClass::kCollective;
}

}  // namespace hmo
