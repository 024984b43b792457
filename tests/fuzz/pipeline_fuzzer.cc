// Fuzz target: pipeline sources, YAML files and --passes text, through their
// parsers (everything before a pass registry is involved).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hmo/pipeline/pipeline_text_parser.h"
#include "hmo/pipeline/pipeline_yaml_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)hmo::ParsePipelineYaml(text, "fuzz.yaml");
  (void)hmo::ParsePipelineText(text, "<fuzz>");
  return 0;
}
