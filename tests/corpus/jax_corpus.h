#ifndef HMO_TESTS_CORPUS_JAX_CORPUS_H_
#define HMO_TESTS_CORPUS_JAX_CORPUS_H_

// Where the JAX corpus lives (tests/corpus/<program>/, one folder per
// program with a manifest.json) and how its dumps are named, for the tests
// over it.

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "hmo/analysis/memory_report.h"
#include "yaml-cpp/yaml.h"

namespace hmo::testing {

inline std::filesystem::path JaxCorpusDir() { return std::filesystem::path(HMO_TEST_DATA_DIR) / "corpus"; }

// Every folder with a manifest.json, sorted.
inline std::vector<std::string> JaxCorpusPrograms() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(JaxCorpusDir())) {
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "manifest.json")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// XLA's dump of `program` "before" or "after" its optimizations, by XLA's
// file-name suffixes.
inline std::filesystem::path JaxCorpusDump(const std::string& program, std::string_view which) {
  const std::filesystem::path dir = JaxCorpusDir() / program;
  const std::string suffix =
      which == "before" ? ".before_optimizations.txt" : ".cpu_after_optimizations.txt";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string f = entry.path().filename().string();
    if (f.size() > suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return entry.path();
    }
  }
  return dir / ("<no " + std::string(which) + " dump>");
}

// The memory report options under which hmo's figures are XLA:CPU's: its
// best-fit heap, and offsets aligned to 64 bytes (XLA:CPU's buffer assignment
// dump shows temp offsets 0, 64, 128 ...).
inline MemoryReportOptions XlaCpuMemoryReportOptions() {
  MemoryReportOptions options;
  options.heap_algorithm = TempHeapAlgorithm::kXla;
  options.alignment = 64;
  return options;
}

// XLA's compiled.memory_analysis() figures for `program`, as the corpus
// generator wrote them.
inline YAML::Node JaxCorpusMemoryAnalysis(const std::string& program) {
  return YAML::LoadFile((JaxCorpusDir() / program / "memory_analysis.json").string());
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_CORPUS_JAX_CORPUS_H_
