// The runtime's 16-bit float conversions, which generated code calls: the
// framework's one definition (hmo/base/half_float_bits.h).

#include <cstdint>

#include "hmo/base/half_float_bits.h"
#include "hmo/codegen/runtime/runtime_functions.h"

extern "C" float __hmo_cpu_f16_to_f32(uint16_t value) {
  return hmo::half_float_bits::F16ToF32(value);
}

extern "C" uint16_t __hmo_cpu_f32_to_f16(float value) {
  return hmo::half_float_bits::F32ToF16(value);
}

extern "C" float __hmo_cpu_bf16_to_f32(uint16_t value) {
  return hmo::half_float_bits::Bf16ToF32(value);
}

extern "C" uint16_t __hmo_cpu_f32_to_bf16(float value) {
  return hmo::half_float_bits::F32ToBf16(value);
}
