// Fuzz target: buffer-lifetime CSVs (hmo pack's input) through the reader,
// XLA's best-fit and the validator: every plan of an accepted instance must
// validate.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "hmo/analysis/buffer_packing_csv.h"
#include "hmo/analysis/heap_packing_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto instance = hmo::ParseHeapCsv(text, "fuzz.csv");
  if (!instance.ok() || instance->size() > 2000) return 0;
  for (int64_t alignment : {1, 8}) {
    auto packed = hmo::PackBuffers(*instance, "best-fit", alignment);
    hmo::fuzz::FuzzCheck(packed.ok(), packed.status().ToString());
    const absl::Status valid = hmo::ValidatePacking(*instance, packed->offsets, alignment);
    hmo::fuzz::FuzzCheck(valid.ok(), valid.ToString());
  }
  return 0;
}
