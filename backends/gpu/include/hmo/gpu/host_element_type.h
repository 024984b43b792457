#ifndef HMO_GPU_HOST_ELEMENT_TYPE_H_
#define HMO_GPU_HOST_ELEMENT_TYPE_H_

// The element types a HostMemoryPool can hold: the scalar primitive types of
// HLO, named as in HLO text ("s32", "f32", ...). Kept separate from the IR's
// PrimitiveType so the runtime does not depend on the IR; the backend plugin
// converts between the two.

#include <complex>
#include <cstddef>
#include <cstdint>
#include "absl/strings/string_view.h"

namespace hmo::gpu {

enum class HostElementType {
  kPred,
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,   // no native C++ type: access through Handle::data()
  kBF16,  // no native C++ type: access through Handle::data()
  kF32,
  kF64,
  kC64,
  kC128,
};

// Bytes per element: 1 for pred/s8/u8, ..., 16 for c128.
size_t ByteWidth(HostElementType type);

// The HLO text name: "pred", "s32", "bf16", "c64", ...
absl::string_view HostElementTypeName(HostElementType type);

// HostElementTypeOf<T>::value: the element type stored as C++ type T. Only
// defined for types with an exact C++ counterpart.
template <typename T>
struct HostElementTypeOf;

#define HMO_GPU_HOST_ELEMENT_TYPE_OF_(cpp_type, element_type)               \
  template <>                                                               \
  struct HostElementTypeOf<cpp_type> {                                      \
    static constexpr HostElementType value = HostElementType::element_type; \
  }

HMO_GPU_HOST_ELEMENT_TYPE_OF_(bool, kPred);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(int8_t, kS8);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(int16_t, kS16);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(int32_t, kS32);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(int64_t, kS64);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(uint8_t, kU8);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(uint16_t, kU16);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(uint32_t, kU32);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(uint64_t, kU64);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(float, kF32);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(double, kF64);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(std::complex<float>, kC64);
HMO_GPU_HOST_ELEMENT_TYPE_OF_(std::complex<double>, kC128);

#undef HMO_GPU_HOST_ELEMENT_TYPE_OF_

}  // namespace hmo::gpu

#endif  // HMO_GPU_HOST_ELEMENT_TYPE_H_
