#include "hmo/gpu/host_element_type.h"

namespace hmo::gpu {

size_t ByteWidth(HostElementType type) {
  switch (type) {
    case HostElementType::kPred:
    case HostElementType::kS8:
    case HostElementType::kU8:
      return 1;
    case HostElementType::kS16:
    case HostElementType::kU16:
    case HostElementType::kF16:
    case HostElementType::kBF16:
      return 2;
    case HostElementType::kS32:
    case HostElementType::kU32:
    case HostElementType::kF32:
      return 4;
    case HostElementType::kS64:
    case HostElementType::kU64:
    case HostElementType::kF64:
    case HostElementType::kC64:
      return 8;
    case HostElementType::kC128:
      return 16;
  }
  return 0;
}

absl::string_view HostElementTypeName(HostElementType type) {
  switch (type) {
    case HostElementType::kPred: return "pred";
    case HostElementType::kS8: return "s8";
    case HostElementType::kS16: return "s16";
    case HostElementType::kS32: return "s32";
    case HostElementType::kS64: return "s64";
    case HostElementType::kU8: return "u8";
    case HostElementType::kU16: return "u16";
    case HostElementType::kU32: return "u32";
    case HostElementType::kU64: return "u64";
    case HostElementType::kF16: return "f16";
    case HostElementType::kBF16: return "bf16";
    case HostElementType::kF32: return "f32";
    case HostElementType::kF64: return "f64";
    case HostElementType::kC64: return "c64";
    case HostElementType::kC128: return "c128";
  }
  return "unknown";
}

}  // namespace hmo::gpu
