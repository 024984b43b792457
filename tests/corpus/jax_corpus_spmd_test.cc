// The SPMD corpus (tests/corpus_spmd/<program>/, made by
// bench/jax_corpus/generate_spmd.py): XLA's partitioned modules, one program
// for every device of a replicas x partitions grid, each device with its own
// inputs and XLA's outputs under device<k>/. Every program folder is a case.
//
//  * `hmo run pipelines/memory-scheduler.yaml --execute --backend cpu` runs
//    all devices, and every device's every output is XLA's (element type and
//    dimensions exactly, values within the float tolerance);
//  * with --check the run agrees with hmo's reference evaluator;
//  * the same under `mpirun -n <devices>`, one device per process, on the CPU
//    backend and the GPU backend's emulation; another process count is
//    refused;
//  * `hmo stats` of the optimized module (the per-device program) gives
//    XLA's per-device memory_analysis();
//  * pipelines/fit.yaml under a share of XLA's device bytes either fits and
//    still computes XLA's outputs on every device, or refuses a limit below
//    its proven floor, before anything runs (the single-device rule of
//    jax_corpus_execution_test.cc);
//  * inputs not given as one directory of device<d>/input_<i>.npy, or with a
//    device's folder missing, are refused, naming what is missing.

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"
#include "jax_corpus.h"
#include "support/hmo_cli_runner.h"
#include "yaml-cpp/yaml.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Programs() {
  return testing::JaxCorpusPrograms(testing::JaxSpmdCorpusDir());
}

fs::path Pipeline(const std::string& name) {
  return fs::path(HMO_TEST_DATA_DIR) / ".." / "pipelines" / (name + ".yaml");
}

std::string DeviceDir(int64_t device) { return "device" + std::to_string(device); }

// A fresh folder for one run's results, unique per test process (ctest runs
// the cases as parallel processes).
fs::path ScratchDir(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / absl::StrCat("hmo_spmd_", tag, "_", ::getpid());
  fs::remove_all(dir);
  return dir;
}

// One program: its folder, XLA's optimized dump, and from it the ENTRY's
// result shape and how many devices run it.
struct SpmdProgram {
  std::string name;
  fs::path dir;
  fs::path dump;
  Shape root;
  int64_t devices = 0;
  int64_t parameters = 0;
};

// Fails the calling test (through ASSERT_*) when the dump does not parse or
// the manifest disagrees with it.
void LoadProgram(const std::string& name, SpmdProgram* program) {
  program->name = name;
  program->dir = testing::JaxSpmdCorpusDir() / name;
  program->dump = testing::JaxCorpusDump(name, "after", testing::JaxSpmdCorpusDir());
  auto module = ParseHloModuleFile(program->dump.string());
  ASSERT_TRUE(module.ok()) << module.status();
  program->root = (*module)->entry_computation()->root_instruction()->shape();
  program->parameters = (*module)->entry_computation()->num_parameters();
  program->devices = (*module)->replica_count() * (*module)->num_partitions();
  const YAML::Node manifest = YAML::LoadFile((program->dir / "manifest.json").string());
  // A module the corpus holds for several devices, with a folder for each.
  ASSERT_GT(program->devices, 1) << program->dump;
  ASSERT_EQ(manifest["num_devices"].as<int64_t>(), program->devices) << program->dump;
  for (int64_t k = 0; k < program->devices; ++k) {
    ASSERT_TRUE(fs::is_directory(program->dir / DeviceDir(k))) << program->dir / DeviceDir(k);
  }
}

// Every device's results under `results`/device<k>/ match XLA's, and no
// device beyond the grid wrote any.
void ExpectEveryDeviceMatchesXla(const SpmdProgram& program, const fs::path& results,
                                 const std::string& what) {
  for (int64_t k = 0; k < program.devices; ++k) {
    SCOPED_TRACE(DeviceDir(k));
    testing::ExpectResultsMatchXla(program.dir / DeviceDir(k), results / DeviceDir(k), program.root,
                                   /*exact_xla_types=*/true, absl::StrCat(what, " ", DeviceDir(k)));
  }
  EXPECT_FALSE(fs::exists(results / DeviceDir(program.devices))) << results;
}

class JaxSpmdCorpusTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(LoadProgram(GetParam(), &program_)); }

  // `hmo run PIPELINE DUMP --execute --backend cpu --inputs DIR` plus `extra`.
  test_support::HmoCliRun Run(const std::string& pipeline, const std::string& extra) const {
    return test_support::RunHmoCli(
        absl::StrCat("run ", Pipeline(pipeline).string(), " ", program_.dump.string(),
                     " --execute --backend cpu --inputs ", program_.dir.string(), extra));
  }

  SpmdProgram program_;
};

// Timed as a benchmark runs it: warm runs of all devices together, each
// bit-identical to the first (the run fails otherwise).
TEST_P(JaxSpmdCorpusTest, EveryDeviceMatchesXla) {
  const fs::path results = ScratchDir(program_.name + "_run");
  const test_support::HmoCliRun hmo =
      Run("memory-scheduler", " --repeat 3 --results-dir " + results.string());
  ASSERT_EQ(hmo.exit_code, 0) << hmo.err;
  EXPECT_NE((hmo.out + hmo.err).find("warm median"), std::string::npos) << hmo.out << hmo.err;
  ExpectEveryDeviceMatchesXla(program_, results, program_.dump.filename().string());
  fs::remove_all(results);
}

// The GPU backend's emulation: one emulated device per partition, the
// collective thunks running the same plans.
TEST_P(JaxSpmdCorpusTest, EveryEmulatedGpuDeviceMatchesXla) {
  const fs::path results = ScratchDir(program_.name + "_gpu");
  const test_support::HmoCliRun hmo = test_support::RunHmoCli(
      absl::StrCat("run ", Pipeline("memory-scheduler").string(), " ", program_.dump.string(),
                   " --execute --backend gpu-emulated --inputs ", program_.dir.string(),
                   " --results-dir ", results.string()));
  ASSERT_EQ(hmo.exit_code, 0) << hmo.err;
  ExpectEveryDeviceMatchesXla(program_, results,
                              "gpu-emulated " + program_.dump.filename().string());
  fs::remove_all(results);
}

// The same devices as the processes of an MPI launch (`mpirun -n <devices>`):
// each process runs its device, its collectives meet the others' over MPI,
// and process 0 alone prints and writes every device's results.
std::string MpiLauncher(int64_t processes) {
  // Root in CI containers; more processes than cores; no cross-memory
  // attach (containers often forbid ptrace).
  return absl::StrCat(
      "mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none -n ",
      processes);
}

bool HaveMpirun() { return std::system("command -v mpirun > /dev/null 2>&1") == 0; }

// `hmo run` of the program on `backend` by `processes` processes of an MPI
// launch, its results under `results` (none: not written).
test_support::HmoCliRun RunAcrossMpiProcesses(const SpmdProgram& program, int64_t processes,
                                              const std::string& backend, const fs::path& results) {
  return test_support::RunHmoCliLaunchedBy(
      MpiLauncher(processes),
      absl::StrCat("run ", Pipeline("memory-scheduler").string(), " ", program.dump.string(),
                   " --execute --backend ", backend, " --inputs ", program.dir.string(),
                   results.empty() ? "" : " --results-dir " + results.string() + " --check"));
}

// One process per device: every device's results are XLA's, and one summary
// (process 0's) is printed.
void ExpectEveryDeviceMatchesXlaAcrossMpiProcesses(const SpmdProgram& program,
                                                   const std::string& backend) {
  const fs::path results = ScratchDir(absl::StrCat(program.name, "_", backend, "_mpi"));
  const test_support::HmoCliRun hmo =
      RunAcrossMpiProcesses(program, program.devices, backend, results);
  ASSERT_EQ(hmo.exit_code, 0) << hmo.out << hmo.err;
  const size_t check = hmo.out.find("check: ok");
  ASSERT_NE(check, std::string::npos) << hmo.out;
  EXPECT_EQ(hmo.out.find("check: ok", check + 1), std::string::npos) << hmo.out;
  ExpectEveryDeviceMatchesXla(
      program, results, absl::StrCat("mpirun ", backend, " ", program.dump.filename().string()));
  fs::remove_all(results);
}

// A launch of another process count than the module's devices is refused
// by every process, naming the count it needs.
void ExpectTheWrongProcessCountRefused(const SpmdProgram& program, const std::string& backend) {
  const test_support::HmoCliRun hmo = RunAcrossMpiProcesses(program, 2, backend, {});
  EXPECT_NE(hmo.exit_code, 0);
  EXPECT_NE(
      hmo.err.find(absl::StrCat("this launch has 2 processes (mpirun -n ", program.devices, ")")),
      std::string::npos)
      << hmo.err;
}

TEST_P(JaxSpmdCorpusTest, EveryDeviceMatchesXlaAcrossMpiProcesses) {
  if (!HaveMpirun())
    GTEST_SKIP() << "mpirun not found (Open MPI: openmpi-bin, installed by scripts/bootstrap.sh)";
  ExpectEveryDeviceMatchesXlaAcrossMpiProcesses(program_, "cpu");
}

TEST_P(JaxSpmdCorpusTest, MpiLaunchOfTheWrongProcessCountIsRefused) {
  if (!HaveMpirun())
    GTEST_SKIP() << "mpirun not found (Open MPI: openmpi-bin, installed by scripts/bootstrap.sh)";
  ExpectTheWrongProcessCountRefused(program_, "cpu");
}

// The GPU backend's emulation, one emulated device per process: its
// collective thunks run their plans over MPI (MpiCollectives).
TEST_P(JaxSpmdCorpusTest, EveryEmulatedGpuDeviceMatchesXlaAcrossMpiProcesses) {
  if (!HaveMpirun())
    GTEST_SKIP() << "mpirun not found (Open MPI: openmpi-bin, installed by scripts/bootstrap.sh)";
  ExpectEveryDeviceMatchesXlaAcrossMpiProcesses(program_, "gpu-emulated");
}

TEST_P(JaxSpmdCorpusTest, MpiLaunchOfTheWrongProcessCountIsRefusedOnEmulatedGpus) {
  if (!HaveMpirun())
    GTEST_SKIP() << "mpirun not found (Open MPI: openmpi-bin, installed by scripts/bootstrap.sh)";
  ExpectTheWrongProcessCountRefused(program_, "gpu-emulated");
}

// The evaluator runs the same device grid (EvaluateReplicated): --check
// compares every device's every output.
TEST_P(JaxSpmdCorpusTest, CheckAgreesWithTheEvaluator) {
  const test_support::HmoCliRun hmo = Run("memory-scheduler", " --check");
  ASSERT_EQ(hmo.exit_code, 0) << hmo.err;
  const int64_t leaves = static_cast<int64_t>(ShapeUtil::GetLeafShapes(program_.root).size());
  const std::string text = hmo.out + hmo.err;
  EXPECT_NE(text.find(absl::StrCat("check: ok (", program_.devices * leaves, " outputs")),
            std::string::npos)
      << text;
}

// The optimized module is the per-device program: its figures are each
// device's, as XLA's memory_analysis() gives them.
TEST_P(JaxSpmdCorpusTest, StatsEqualXlaMemoryAnalysis) {
  const YAML::Node xla =
      testing::JaxCorpusMemoryAnalysis(program_.name, testing::JaxSpmdCorpusDir());
  const test_support::HmoCliRun stats =
      test_support::RunHmoCli("stats --format json " + program_.dump.string());
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const YAML::Node report = YAML::Load(stats.out);
  for (const char* figure : {"argument_size_in_bytes", "output_size_in_bytes",
                             "alias_size_in_bytes", "temp_size_in_bytes"}) {
    EXPECT_EQ(report["stats"][figure].as<int64_t>(), xla[figure].as<int64_t>()) << figure;
  }
  EXPECT_EQ(report["target"]["name"].as<std::string>(), "cpu");
}

// Inputs for several devices come only as one directory: a list of files
// (the single-device form), a directory missing a device's folder, and one
// missing a device's input are refused, naming what is wrong.
TEST_P(JaxSpmdCorpusTest, RefusesInputsNotOneDirectoryPerDevice) {
  std::vector<std::string> files;
  for (int64_t i = 0; i < program_.parameters; ++i) {
    files.push_back((program_.dir / "device0" / absl::StrCat("input_", i, ".npy")).string());
  }
  const test_support::HmoCliRun list = test_support::RunHmoCli(
      absl::StrCat("run ", Pipeline("memory-scheduler").string(), " ", program_.dump.string(),
                   " --execute --backend cpu --inputs ", absl::StrJoin(files, ",")));
  EXPECT_NE(list.exit_code, 0);
  EXPECT_NE(list.err.find(absl::StrCat("runs on ", program_.devices, " devices")),
            std::string::npos)
      << list.err;
  EXPECT_NE(list.err.find("one directory holding device<d>/input_<i>.npy"), std::string::npos)
      << list.err;

  const int64_t last = program_.devices - 1;
  const fs::path copy = ScratchDir(program_.name + "_inputs");
  fs::copy(program_.dir, copy, fs::copy_options::recursive);
  fs::remove_all(copy / DeviceDir(last));
  const std::string command =
      absl::StrCat("run ", Pipeline("memory-scheduler").string(), " ", program_.dump.string(),
                   " --execute --backend cpu --inputs ", copy.string());
  const test_support::HmoCliRun no_device = test_support::RunHmoCli(command);
  EXPECT_NE(no_device.exit_code, 0);
  EXPECT_NE(no_device.err.find(absl::StrCat("no directory of device ", last, "'s inputs")),
            std::string::npos)
      << no_device.err;
  EXPECT_NE(no_device.err.find((copy / DeviceDir(last)).string()), std::string::npos)
      << no_device.err;

  // Device `last` back, less its last input.
  fs::copy(program_.dir / DeviceDir(last), copy / DeviceDir(last), fs::copy_options::recursive);
  const fs::path missing =
      copy / DeviceDir(last) / absl::StrCat("input_", program_.parameters - 1, ".npy");
  fs::remove(missing);
  const test_support::HmoCliRun no_input = test_support::RunHmoCli(command);
  EXPECT_NE(no_input.exit_code, 0);
  EXPECT_NE(no_input.err.find(missing.string()), std::string::npos) << no_input.err;
  fs::remove_all(copy);
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxSpmdCorpusTest, ::testing::ValuesIn(Programs()),
                         [](const auto& info) { return info.param; });

// pipelines/fit.yaml on a program under `limit_percent` of XLA's per-device
// bytes (argument + output - alias + temp).
struct FitRun {
  std::string program;
  int64_t limit_percent = 0;
};

void PrintTo(const FitRun& run, std::ostream* out) {
  *out << run.program << " " << run.limit_percent << "%";
}

std::vector<FitRun> AllFitRuns() {
  std::vector<FitRun> runs;
  // ring_permute at 60% fits once copy-elimination orders the ring's
  // readers before its in-place updates (XLA keeps a copy before each).
  for (const std::string& program : Programs()) runs.push_back({program, 60});
  // Limits above the proven floor that fit meets (recomputation and host
  // offload), so that fitted modules run on every device too: at 60% the
  // others are below their floors.
  runs.push_back({"all_to_all", 90});
  runs.push_back({"fsdp_mlp", 80});
  runs.push_back({"ring_permute", 70});
  runs.push_back({"ring_permute", 80});
  return runs;
}

class JaxSpmdCorpusFitTest : public ::testing::TestWithParam<FitRun> {};

TEST_P(JaxSpmdCorpusFitTest, FitsEveryDeviceOrIsBelowTheProvenFloor) {
  const FitRun& run = GetParam();
  SpmdProgram program;
  ASSERT_NO_FATAL_FAILURE(LoadProgram(run.program, &program));
  const int64_t limit = testing::XlaDeviceBytes(testing::JaxCorpusMemoryAnalysis(
                            run.program, testing::JaxSpmdCorpusDir())) *
                        run.limit_percent / 100;
  const fs::path results = ScratchDir(absl::StrCat(run.program, "_fit_", run.limit_percent));
  const test_support::HmoCliRun hmo = test_support::RunHmoCli(
      absl::StrCat("run ", Pipeline("fit").string(), " ", program.dump.string(), " --memory-limit ",
                   limit, " --execute --backend cpu --inputs ", program.dir.string(),
                   " --results-dir ", results.string(), " --check"));
  const std::string text = hmo.out + hmo.err;
  if (hmo.exit_code != 0) {
    // Only a limit below the proven floor is refused, before anything runs.
    EXPECT_GT(testing::LastFigure(text, "below the proven floor of (\\d+) B"), limit) << text;
    EXPECT_EQ(text.find("planned arenas"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(results)) << results;
    fs::remove_all(results);
    return;
  }
  // Every device's arenas are the one plan, within the limit.
  const int64_t allocated = testing::LastFigure(text, "planned arenas: space 0 (\\d+) B");
  EXPECT_GT(allocated, 0) << text;
  EXPECT_LE(allocated, limit) << text;
  EXPECT_NE(text.find("check: ok"), std::string::npos) << text;
  ExpectEveryDeviceMatchesXla(program, results, absl::StrCat("fit to ", limit, " B"));
  fs::remove_all(results);
}

std::string FitRunName(const ::testing::TestParamInfo<FitRun>& info) {
  std::string name = absl::StrCat(info.param.program, "_", info.param.limit_percent, "_percent");
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxSpmdCorpusFitTest, ::testing::ValuesIn(AllFitRuns()),
                         FitRunName);

}  // namespace
}  // namespace hmo
