// Fuzz target: HLO text through the parser and the verifier. A module that
// parses must print, and its printed form must parse again (the printer and
// parser agree on everything the parser accepts).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"
#include "hmo/verifier/hlo_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto modules = hmo::ParseHloModules(text, "fuzz.hlo");
  if (!modules.ok()) return 0;
  for (const auto& module : *modules) {
    (void)hmo::CollectVerifierErrors(*module, {});
    const std::string printed = hmo::PrintHloModule(*module);
    auto reparsed = hmo::ParseHloModule(printed, "printed.hlo");
    hmo::fuzz::FuzzCheck(reparsed.ok(), reparsed.ok() ? "" : reparsed.status().ToString() + "\n" + printed);
  }
  return 0;
}
