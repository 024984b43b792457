// RuntimeSymbols lists every runtime function, by its C name, once.

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "hmo/codegen/runtime/runtime_functions.h"

namespace {

TEST(RuntimeSymbolsTest, ListsEveryFunctionWithItsAddress) {
  const auto symbols = hmo::codegen::RuntimeSymbols();
  std::set<std::string> names;
  for (const auto& [name, address] : symbols) {
    EXPECT_NE(address, nullptr) << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate " << name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"__hmo_cpu_gemm_f32",
                                          "__hmo_cpu_gemm_f64",
                                          "__hmo_cpu_gemm_bf16_f32",
                                          "__hmo_cpu_gemm_f16_f32",
                                          "__hmo_cpu_gemm_epilogue_f16_f32",
                                          "__hmo_cpu_gemm_s8_s32",
                                          "__hmo_cpu_gemm_epilogue_f32",
                                          "__hmo_cpu_gemm_epilogue_f64",
                                          "__hmo_cpu_gemm_epilogue_bf16_f32",
                                          "__hmo_cpu_gemm_epilogue_s8_s32",
                                          "__hmo_cpu_conv2d_f32",
                                          "__hmo_cpu_conv2d_bf16",
                                          "__hmo_cpu_conv2d_epilogue_f32",
                                          "__hmo_cpu_conv2d_epilogue_bf16",
                                          "__hmo_cpu_conv2d_f16",
                                          "__hmo_cpu_conv2d_epilogue_f16",
                                          "__hmo_cpu_sort",
                                          "__hmo_cpu_f16_to_f32",
                                          "__hmo_cpu_f32_to_f16",
                                          "__hmo_cpu_bf16_to_f32",
                                          "__hmo_cpu_f32_to_bf16",
                                          "__hmo_cpu_parallel_for",
                                          "__hmo_cpu_run_kernel_graph"}));
  for (const auto& [name, address] : symbols) {
    if (name == "__hmo_cpu_f32_to_f16") {
      EXPECT_EQ(address, reinterpret_cast<void*>(&__hmo_cpu_f32_to_f16));
    }
  }
}

}  // namespace
