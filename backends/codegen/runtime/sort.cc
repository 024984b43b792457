// Multi-operand sort along one dimension, with a generated comparator.
//
// Each (outer, inner) position sorts a vector of positions by calling the
// comparator on pointers straight into the operand buffers, then applies the
// resulting permutation to every operand through a scratch buffer. The
// positions are sorted with std::stable_sort even when the HLO does not ask
// for stability: a merge sort never indexes past its range, whatever the
// comparator answers, whereas std::sort's unguarded partition can run off the
// array when a generated comparator is not a strict weak order.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "hmo/codegen/runtime/runtime_functions.h"

extern "C" void __hmo_cpu_sort(int64_t outer, int64_t sort_size, int64_t inner,
                               int32_t num_operands, char** operands, const int64_t* element_bytes,
                               int32_t /*is_stable*/,
                               void (*less_than)(char* result_pred_i8, char** elements)) {
  if (outer <= 0 || sort_size <= 1 || inner <= 0 || num_operands <= 0) return;

  int64_t largest_element = 0;
  for (int32_t i = 0; i < num_operands; ++i) {
    largest_element = std::max(largest_element, element_bytes[i]);
  }
  std::vector<int64_t> order(static_cast<size_t>(sort_size));
  std::vector<char*> compared(static_cast<size_t>(2 * num_operands));
  std::vector<char> scratch(static_cast<size_t>(sort_size * largest_element));

  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      // Position s of operand i lives at
      // operands[i] + ((o * sort_size + s) * inner + j) * element_bytes[i].
      const int64_t first = o * sort_size * inner + j;
      auto element = [&](int32_t operand, int64_t s) {
        return operands[operand] + (first + s * inner) * element_bytes[operand];
      };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t lhs, int64_t rhs) {
        for (int32_t i = 0; i < num_operands; ++i) {
          compared[2 * i] = element(i, lhs);
          compared[2 * i + 1] = element(i, rhs);
        }
        char result = 0;
        less_than(&result, compared.data());
        return result != 0;
      });
      for (int32_t i = 0; i < num_operands; ++i) {
        const int64_t bytes = element_bytes[i];
        for (int64_t s = 0; s < sort_size; ++s) {
          std::memcpy(scratch.data() + s * bytes, element(i, order[s]), bytes);
        }
        for (int64_t s = 0; s < sort_size; ++s) {
          std::memcpy(element(i, s), scratch.data() + s * bytes, bytes);
        }
      }
    }
  }
}
