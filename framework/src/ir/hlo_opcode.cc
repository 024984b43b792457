#include "hmo/ir/hlo_opcode.h"

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

bool IsFloatingUnaryOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kTanh:
    case HloOpcode::kTan:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseOpcode(HloOpcode opcode) {
  if (IsFloatingUnaryOpcode(opcode)) return true;
  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kAtan2:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kCeil:
    case HloOpcode::kClamp:
    case HloOpcode::kClz:
    case HloOpcode::kCompare:
    case HloOpcode::kComplex:
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
    case HloOpcode::kDivide:
    case HloOpcode::kErf:
    case HloOpcode::kFloor:
    case HloOpcode::kImag:
    case HloOpcode::kIsFinite:
    case HloOpcode::kMap:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kOr:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kPower:
    case HloOpcode::kReal:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kRemainder:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kSelect:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSign:
    case HloOpcode::kStochasticConvert:
    case HloOpcode::kSubtract:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsAsyncStartOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCopyStart:
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
      return true;
    default:
      return false;
  }
}

bool IsAsyncDoneOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCopyDone:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

bool IsCollectiveOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

}  // namespace hmo
