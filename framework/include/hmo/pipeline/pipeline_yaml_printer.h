#ifndef HMO_PIPELINE_PIPELINE_YAML_PRINTER_H_
#define HMO_PIPELINE_PIPELINE_YAML_PRINTER_H_

// Prints a resolved pipeline as a YAML pipeline file (`--dump-pipeline`, and
// the copy written next to dumps): every option of every pass, defaults
// included, so the output records exactly what ran and reads back to the same
// pipeline with ParsePipelineYaml + ResolvePipeline.

#include <string>

#include "hmo/pipeline/resolved_pipeline.h"

namespace hmo {

std::string PrintPipelineYaml(const ResolvedPipeline& pipeline);

}  // namespace hmo

#endif  // HMO_PIPELINE_PIPELINE_YAML_PRINTER_H_
