#ifndef HMO_BACKENDS_GPU_CODEGEN_TESTS_GPU_CODEGEN_TEST_SUPPORT_H_
#define HMO_BACKENDS_GPU_CODEGEN_TESTS_GPU_CODEGEN_TEST_SUPPORT_H_

// Test helpers of hmo_gpu_codegen_tests: prepare an HLO text module for the
// GPU (copy-insertion, schedule, buffer assignment) and emit its kernels;
// list the PTX entries; assemble the PTX with the toolkit's ptxas.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "gpu/codegen/gpu_kernel_module.h"
#include "gpu/compiler/gpu_module_preparation.h"
#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::gpu::testing {

struct Emitted {
  PreparedGpuModule prepared;
  absl::StatusOr<GpuKernelModule> kernels = absl::UnknownError("not run");
};

inline Emitted Emit(std::string_view text, GpuCodegenOptions options = {}) {
  Emitted e;
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return e;
  auto prepared = PrepareGpuModule(**module);
  EXPECT_TRUE(prepared.ok()) << prepared.status();
  if (!prepared.ok()) return e;
  e.prepared = std::move(*prepared);
  e.kernels = EmitGpuKernels(*e.prepared.module, *e.prepared.assignment, options);
  return e;
}

// The kernel named `name`, or null.
inline const GpuKernel* KernelNamed(const GpuKernelModule& module, std::string_view name) {
  for (const GpuKernel& kernel : module.kernels) {
    if (kernel.name == name) return &kernel;
  }
  return nullptr;
}

inline std::set<std::string> EntryNames(const std::string& ptx) {
  std::set<std::string> names;
  const std::regex entry(R"(\.entry\s+([A-Za-z_][A-Za-z0-9_$]*))");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), entry); it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

// Runs ptxas for sm_90 on `ptx`; skips the calling test without ptxas (call
// it last in a test).
inline void ExpectPtxasAccepts(const std::string& ptx, const std::string& tag) {
  const std::string ptxas = HMO_GPU_PTXAS;
  if (ptxas.empty() || !std::filesystem::exists(ptxas)) {
    GTEST_SKIP() << "ptxas not found (looked for the CUDA toolkit's bin/ptxas at configure time); "
                    "the PTX was generated but not assembled";
  }
  const auto dir = std::filesystem::temp_directory_path();
  const std::string base = (dir / ("hmo_gpu_" + tag + "_" + std::to_string(::getpid()))).string();
  {
    std::ofstream out(base + ".ptx");
    out << ptx;
  }
  const std::string command =
      ptxas + " -arch=sm_90 " + base + ".ptx -o " + base + ".cubin > " + base + ".log 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream log_in(base + ".log");
  const std::string log((std::istreambuf_iterator<char>(log_in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << "ptxas failed:\n" << log << "\nPTX:\n" << ptx;
  EXPECT_TRUE(std::filesystem::exists(base + ".cubin"));
  for (const char* ext : {".ptx", ".cubin", ".log"}) std::filesystem::remove(base + ext);
}

}  // namespace hmo::gpu::testing

#endif  // HMO_BACKENDS_GPU_CODEGEN_TESTS_GPU_CODEGEN_TEST_SUPPORT_H_
