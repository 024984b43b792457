#ifndef HMO_EVAL_ELEMENT_COPY_H_
#define HMO_EVAL_ELEMENT_COPY_H_

// Copying single elements between raw literal buffers without knowing their
// type, only their byte width. Data-movement opcodes (broadcast, transpose,
// slice, gather, ...) are all "which source element goes where", so they
// move bytes instead of dispatching on the element type.

#include <cstdint>
#include <cstring>

namespace hmo::eval_internal {

// Copies element `src_index` of `src` to element `dst_index` of `dst`, both
// holding elements of `width` bytes. The fixed-size cases let the compiler
// turn the copy into one load and store.
inline void CopyElement(const uint8_t* src, int64_t src_index, uint8_t* dst, int64_t dst_index,
                        int64_t width) {
  switch (width) {
    case 1:
      dst[dst_index] = src[src_index];
      return;
    case 2:
      std::memcpy(dst + dst_index * 2, src + src_index * 2, 2);
      return;
    case 4:
      std::memcpy(dst + dst_index * 4, src + src_index * 4, 4);
      return;
    case 8:
      std::memcpy(dst + dst_index * 8, src + src_index * 8, 8);
      return;
    default:
      std::memcpy(dst + dst_index * width, src + src_index * width, static_cast<size_t>(width));
  }
}

}  // namespace hmo::eval_internal

#endif  // HMO_EVAL_ELEMENT_COPY_H_
