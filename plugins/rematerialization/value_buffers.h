#ifndef HMO_PLUGINS_REMATERIALIZATION_VALUE_BUFFERS_H_
#define HMO_PLUGINS_REMATERIALIZATION_VALUE_BUFFERS_H_

// What the memory-limit searches need to know about the buffer behind an
// instruction's value, in one place: whether it is another value's buffer,
// its device bytes, and whether a parameter's buffer is written in place.

#include <cstdint>

#include "hmo/ir/hlo_instruction.h"

namespace hmo {

// Bitcast, get-tuple-element and tuple: the result is (part of) another
// buffer, so recomputing or moving it frees nothing, and keeping it longer
// costs nothing of its own.
bool AliasesAnotherBuffer(const HloInstruction& instruction);

// The bytes of `instruction`'s array value in device memory; 0 for a tuple
// or a value in host memory (S(5)).
int64_t DeviceArrayBytes(const HloInstruction& instruction);

// Whether entry parameter `parameter` is donated: aliased with an output
// or a buffer donor, so an output overwrites it.
bool IsDonatedArgument(const HloInstruction& parameter);

// Whether `parameter`'s buffer is written in place while its computation
// runs: a donated argument, or a loop body's state (the next iteration's
// values replace it).
bool IsWrittenInPlace(const HloInstruction& parameter);

}  // namespace hmo

#endif  // HMO_PLUGINS_REMATERIALIZATION_VALUE_BUFFERS_H_
