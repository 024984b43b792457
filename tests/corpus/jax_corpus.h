#ifndef HMO_TESTS_CORPUS_JAX_CORPUS_H_
#define HMO_TESTS_CORPUS_JAX_CORPUS_H_

// Where the JAX corpora live (tests/corpus/<program>/ and the SPMD one,
// tests/corpus_spmd/<program>/, one folder per program with a manifest.json),
// how their dumps are named, and what the tests over them share: XLA's
// figures, the figures hmo prints, and comparing `hmo run --execute`'s
// results with XLA's outputs.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/npy.h"
#include "hmo/ir/shape.h"
#include "yaml-cpp/yaml.h"

namespace hmo::testing {

inline std::filesystem::path JaxCorpusDir() { return std::filesystem::path(HMO_TEST_DATA_DIR) / "corpus"; }

// The SPMD-partitioned programs (num_partitions=4), each device's inputs and
// XLA's outputs under device<k>/.
inline std::filesystem::path JaxSpmdCorpusDir() {
  return std::filesystem::path(HMO_TEST_DATA_DIR) / "corpus_spmd";
}

// Every folder of `corpus` with a manifest.json, sorted.
inline std::vector<std::string> JaxCorpusPrograms(
    const std::filesystem::path& corpus = JaxCorpusDir()) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "manifest.json")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// XLA's dump of `program` "before" or "after" its optimizations, by XLA's
// file-name suffixes.
inline std::filesystem::path JaxCorpusDump(const std::string& program, std::string_view which,
                                           const std::filesystem::path& corpus = JaxCorpusDir()) {
  const std::filesystem::path dir = corpus / program;
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
inline YAML::Node JaxCorpusMemoryAnalysis(const std::string& program,
                                          const std::filesystem::path& corpus = JaxCorpusDir()) {
  return YAML::LoadFile((corpus / program / "memory_analysis.json").string());
}

// XLA's device bytes (argument + output - alias + temp): what the memory
// limits of the fit tests are shares of.
inline int64_t XlaDeviceBytes(const YAML::Node& memory_analysis) {
  return memory_analysis["argument_size_in_bytes"].as<int64_t>() +
         memory_analysis["output_size_in_bytes"].as<int64_t>() -
         memory_analysis["alias_size_in_bytes"].as<int64_t>() +
         memory_analysis["temp_size_in_bytes"].as<int64_t>();
}

// The last figure `pattern`'s group 1 matches in hmo's output, thousands
// separators dropped; -1 when it matches nowhere.
inline int64_t LastFigure(const std::string& text, const std::string& pattern) {
  std::string last;
  const std::regex regex(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), regex);
       it != std::sregex_iterator(); ++it) {
    last = (*it)[1].str();
  }
  last.erase(std::remove(last.begin(), last.end(), ','), last.end());
  return last.empty() ? -1 : std::stoll(last);
}

// Expects the results `hmo run --execute` wrote to `results` (result.npy, or
// result.<index>.npy per leaf of a tuple `root`) to match XLA's
// `expected`/output_<i>.npy (leaf i). hmo's files must hold each leaf's
// element type and dimensions; XLA's must too when `exact_xla_types`, else
// they are converted to the leaf's (the single-device corpus has dtypes
// numpy widens). `what` names the run in failures.
inline void ExpectResultsMatchXla(const std::filesystem::path& expected,
                                  const std::filesystem::path& results, const Shape& root,
                                  bool exact_xla_types, const std::string& what) {
  const std::vector<ShapeUtil::IndexedShape> leaves = ShapeUtil::GetLeafShapes(root);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Shape& leaf = leaves[i].shape;
    const std::string xla_file = (expected / ("output_" + std::to_string(i) + ".npy")).string();
    auto xla = exact_xla_types ? ReadNpyFile(xla_file) : ReadNpyFileAs(xla_file, leaf);
    ASSERT_TRUE(xla.ok()) << what << ": " << xla.status();
    std::string name = "result";
    for (int64_t k : leaves[i].index) name += "." + std::to_string(k);
    const std::string hmo_file =
        (results / (root.IsTuple() ? name + ".npy" : "result.npy")).string();
    auto actual = ReadNpyFile(hmo_file);
    ASSERT_TRUE(actual.ok()) << what << ": " << actual.status();
    EXPECT_TRUE(ShapeUtil::EqualIgnoringLayout(actual->shape(), leaf))
        << what << ": " << hmo_file << " holds " << ShapeUtil::HumanString(actual->shape())
        << ", output " << i << " is " << ShapeUtil::HumanString(leaf);
    EXPECT_TRUE(ShapeUtil::EqualIgnoringLayout(xla->shape(), leaf))
        << what << ": " << xla_file << " holds " << ShapeUtil::HumanString(xla->shape())
        << ", output " << i << " is " << ShapeUtil::HumanString(leaf);
    const absl::Status same = CompareLiterals(*xla, *actual);
    EXPECT_TRUE(same.ok()) << what << ", output " << i << ": " << same.message();
  }
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_CORPUS_JAX_CORPUS_H_
