#ifndef HMO_ANALYSIS_HEAP_ALGORITHM_H_
#define HMO_ANALYSIS_HEAP_ALGORITHM_H_

// The interface every heap-packing algorithm implements, and the buffer order
// the algorithms use to break ties.
//
// A heap simulation feeds an algorithm a stream of events in schedule order:
// Alloc when a buffer becomes live, Free when it dies, ShareWith when a new
// buffer must live at the same address as an earlier one (in-place reuse,
// aliasing). Finish is called once at the end and returns the placement.
//
// `BufferType` is the buffer key: a small copyable, hashable value
// (`const HloValue*` on the HLO side, an integer id or a small struct in
// tests). Algorithms that break ties between buffers take a `BufferOrder`,
// because XLA orders buffers by HloValue id, not by address.

#include <concepts>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include "absl/status/statusor.h"
#include "hmo/analysis/heap_chunk.h"
#include "hmo/analysis/heap_result.h"

namespace hmo {

// A strict weak order on buffers ("a comes before b"). It must be a total
// order on the buffers of one simulation, so ties are broken the same way on
// every run.
template <typename BufferType>
using BufferOrder = std::function<bool(const BufferType&, const BufferType&)>;

// The order used when the caller gives none: for a pointer, the pointees'
// operator< (XLA's HloValue compares by id); otherwise the keys' operator<.
// A pointer to a type without operator< has no default: pass BufferOrderById,
// since ordering by address would make results differ from run to run.
template <typename BufferType>
BufferOrder<BufferType> DefaultBufferOrder() {
  if constexpr (std::is_pointer_v<BufferType>) {
    using Pointee = std::remove_cv_t<std::remove_pointer_t<BufferType>>;
    static_assert(
        requires(const Pointee& a, const Pointee& b) {
          { a < b } -> std::convertible_to<bool>;
        },
        "DefaultBufferOrder: the pointee has no operator<; pass "
        "BufferOrderById(id_of) so ties are broken by id, not by address");
    return [](const BufferType& a, const BufferType& b) { return *a < *b; };
  } else {
    static_assert(
        requires(const BufferType& a, const BufferType& b) {
          { a < b } -> std::convertible_to<bool>;
        },
        "DefaultBufferOrder: the buffer type has no operator<; pass a "
        "BufferOrder");
    return [](const BufferType& a, const BufferType& b) { return a < b; };
  }
}

// Orders buffers by `id_of(buffer)` ascending, e.g.
// `BufferOrderById<const HloValue*>([](const HloValue* v) { return v->id(); })`.
template <typename BufferType, typename IdOf>
BufferOrder<BufferType> BufferOrderById(IdOf id_of) {
  return [id_of = std::move(id_of)](const BufferType& a, const BufferType& b) {
    return id_of(a) < id_of(b);
  };
}

template <typename BufferType>
class HeapAlgorithm {
 public:
  using Result = HeapSimulatorResult<BufferType>;

  virtual ~HeapAlgorithm() = default;

  // `buffer` becomes live and needs `size` bytes. Each buffer is allocated (or
  // shared) once.
  virtual void Alloc(const BufferType& buffer, int64_t size) = 0;

  // `buffer` dies; `size` is the size it was allocated or shared with.
  virtual void Free(const BufferType& buffer, int64_t size) = 0;

  // `buffer` becomes live and must be placed at the same offset as
  // `share_with`, an earlier allocated or shared buffer; `size` is the size of
  // the shared group. By default a share is an ordinary allocation.
  virtual void ShareWith(const BufferType& buffer, const BufferType& share_with,
                         int64_t size) {
    (void)share_with;
    Alloc(buffer, size);
  }

  // Computes the placement. Called once, after all events. Misuse of the
  // event stream (freeing an unknown buffer, allocating one twice, sharing
  // with an unknown buffer, a size that differs from the allocation) is
  // reported here as an InvalidArgument / FailedPrecondition error.
  virtual absl::StatusOr<Result> Finish() = 0;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_ALGORITHM_H_
