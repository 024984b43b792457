#include "hmo/pipeline/pipeline_yaml_printer.h"

#include <yaml-cpp/yaml.h>

namespace hmo {
namespace {

void EmitOptionValue(YAML::Emitter& out, const PassOptionValue& value) {
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const std::string& element : *list) out << element;
    out << YAML::EndSeq;
    return;
  }
  if (const auto* text = std::get_if<std::string>(&value)) {
    // Quote strings that YAML would otherwise read as another type or as
    // nothing, so they read back as the same text.
    if (text->empty()) {
      out << YAML::DoubleQuoted << *text;
    } else {
      out << *text;
    }
    return;
  }
  out << FormatPassOptionValue(value);
}

void EmitSteps(YAML::Emitter& out, const std::vector<ResolvedStep>& steps) {
  out << YAML::BeginSeq;
  for (const ResolvedStep& step : steps) {
    out << YAML::BeginMap;
    if (step.kind == ResolvedStep::Kind::kFixedPoint) {
      out << YAML::Key << "fixed-point" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "max-iterations" << YAML::Value << step.max_iterations;
      out << YAML::Key << "passes" << YAML::Value;
      EmitSteps(out, step.steps);
      out << YAML::EndMap;
    } else {
      out << YAML::Key << "pass" << YAML::Value << step.pass->registration.name;
      if (!step.options.values().empty()) {
        out << YAML::Key << "options" << YAML::Value << YAML::BeginMap;
        for (const auto& [key, value] : step.options.values()) {
          out << YAML::Key << key << YAML::Value;
          EmitOptionValue(out, value);
        }
        out << YAML::EndMap;
      }
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

std::string PrintPipelineYaml(const ResolvedPipeline& pipeline) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << kPipelineSchemaVersion;
  if (!pipeline.plugins.empty()) {
    out << YAML::Key << "plugins" << YAML::Value << YAML::Flow << pipeline.plugins;
  }
  out << YAML::Key << "verify" << YAML::Value << std::string(VerifyModeName(pipeline.verify));
  if (!pipeline.dump.directory.empty()) {
    out << YAML::Key << "dump" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "to" << YAML::Value << pipeline.dump.directory;
    out << YAML::Key << "after" << YAML::Value << pipeline.dump.after;
    out << YAML::EndMap;
  }
  if (pipeline.memory_limit.has_value()) {
    // Plain bytes: read back exactly.
    out << YAML::Key << "memory-limit" << YAML::Value << std::to_string(*pipeline.memory_limit);
  }
  if (!pipeline.target.empty()) out << YAML::Key << "target" << YAML::Value << pipeline.target;
  if (pipeline.max_pass_runs != kDefaultMaxPassRuns) {
    out << YAML::Key << "max-pass-runs" << YAML::Value << std::to_string(pipeline.max_pass_runs);
  }
  out << YAML::Key << "passes" << YAML::Value;
  EmitSteps(out, pipeline.steps);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace hmo
