// hmo's reference evaluator against XLA itself: each corpus program's dumps
// (before and after XLA's optimizations), run on XLA's seeded inputs, give
// XLA's outputs (tests/corpus/<program>/input_<i>.npy, output_<i>.npy).
// Every `--check` in hmo trusts this evaluator, so it is checked against
// XLA rather than against itself.


#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/npy.h"
#include "hmo/text/hlo_parser.h"
#include "jax_corpus.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return testing::JaxCorpusDir(); }

// Leaf `index` of `literal` (a tuple tree, or an array as its only leaf).
const Literal& Leaf(const Literal& literal, const ShapeIndex& index) {
  const Literal* at = &literal;
  for (int64_t i : index) at = &at->tuple_elements()[i];
  return *at;
}

// Runs the dump on XLA's inputs; OK when every output matches XLA's.
absl::Status EvaluateAgainstXla(const fs::path& dir, const fs::path& path);

class JaxCorpusEvaluatorTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

absl::Status EvaluateAgainstXla(const fs::path& dir, const fs::path& path) {
  auto module = ParseHloModuleFile(path.string());
  if (!module.ok()) return module.status();
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> arguments;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    auto argument = ReadNpyFileAs((dir / ("input_" + std::to_string(i) + ".npy")).string(),
                                  entry->parameter_instruction(i)->shape());
    if (!argument.ok()) return argument.status();
    arguments.push_back(*std::move(argument));
  }
  HloEvaluator evaluator;
  auto result = evaluator.Evaluate(**module, arguments);
  if (!result.ok()) return result.status();
  const std::vector<ShapeUtil::IndexedShape> leaves =
      ShapeUtil::GetLeafShapes(entry->root_instruction()->shape());
  for (size_t i = 0; i < leaves.size(); ++i) {
    auto expected = ReadNpyFileAs((dir / ("output_" + std::to_string(i) + ".npy")).string(), leaves[i].shape);
    if (!expected.ok()) return expected.status();
    absl::Status same = CompareLiterals(*expected, Leaf(*result, leaves[i].index));
    if (!same.ok()) return absl::InvalidArgumentError(absl::StrCat("output ", i, ": ", same.message()));
  }
  return absl::OkStatus();
}

TEST_P(JaxCorpusEvaluatorTest, MatchesXlaOutputs) {
  const auto& [name, which] = GetParam();
  const fs::path dir = CorpusDir() / name;
  const fs::path path = testing::JaxCorpusDump(name, which);
  const absl::Status status = EvaluateAgainstXla(dir, path);
  EXPECT_TRUE(status.ok()) << path << ": " << status;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, JaxCorpusEvaluatorTest,
    ::testing::Combine(::testing::ValuesIn(testing::JaxCorpusPrograms()), ::testing::Values("before", "after")),
    [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

}  // namespace
}  // namespace hmo
