// The (name, address) table the JIT uses to resolve calls from generated code.

#include <string>
#include <utility>
#include <vector>

#include "hmo/codegen/runtime/runtime_functions.h"

namespace hmo::codegen {

std::vector<std::pair<std::string, void*>> RuntimeSymbols() {
  // The names are spelled out, not stringized, so grepping for a symbol finds
  // this table.
  return {
      {"__hmo_cpu_gemm_f32", reinterpret_cast<void*>(&__hmo_cpu_gemm_f32)},
      {"__hmo_cpu_gemm_f64", reinterpret_cast<void*>(&__hmo_cpu_gemm_f64)},
      {"__hmo_cpu_gemm_bf16_f32", reinterpret_cast<void*>(&__hmo_cpu_gemm_bf16_f32)},
      {"__hmo_cpu_gemm_f16_f32", reinterpret_cast<void*>(&__hmo_cpu_gemm_f16_f32)},
      {"__hmo_cpu_gemm_s8_s32", reinterpret_cast<void*>(&__hmo_cpu_gemm_s8_s32)},
      {"__hmo_cpu_gemm_epilogue_f32", reinterpret_cast<void*>(&__hmo_cpu_gemm_epilogue_f32)},
      {"__hmo_cpu_gemm_epilogue_f64", reinterpret_cast<void*>(&__hmo_cpu_gemm_epilogue_f64)},
      {"__hmo_cpu_gemm_epilogue_bf16_f32",
       reinterpret_cast<void*>(&__hmo_cpu_gemm_epilogue_bf16_f32)},
      {"__hmo_cpu_gemm_epilogue_f16_f32",
       reinterpret_cast<void*>(&__hmo_cpu_gemm_epilogue_f16_f32)},
      {"__hmo_cpu_gemm_epilogue_s8_s32", reinterpret_cast<void*>(&__hmo_cpu_gemm_epilogue_s8_s32)},
      {"__hmo_cpu_parallel_for", reinterpret_cast<void*>(&__hmo_cpu_parallel_for)},
      {"__hmo_cpu_run_kernel_graph", reinterpret_cast<void*>(&__hmo_cpu_run_kernel_graph)},
      {"__hmo_cpu_conv2d_f32", reinterpret_cast<void*>(&__hmo_cpu_conv2d_f32)},
      {"__hmo_cpu_conv2d_bf16", reinterpret_cast<void*>(&__hmo_cpu_conv2d_bf16)},
      {"__hmo_cpu_conv2d_f16", reinterpret_cast<void*>(&__hmo_cpu_conv2d_f16)},
      {"__hmo_cpu_conv2d_epilogue_f32", reinterpret_cast<void*>(&__hmo_cpu_conv2d_epilogue_f32)},
      {"__hmo_cpu_conv2d_epilogue_bf16", reinterpret_cast<void*>(&__hmo_cpu_conv2d_epilogue_bf16)},
      {"__hmo_cpu_conv2d_epilogue_f16", reinterpret_cast<void*>(&__hmo_cpu_conv2d_epilogue_f16)},
      {"__hmo_cpu_sort", reinterpret_cast<void*>(&__hmo_cpu_sort)},
      {"__hmo_cpu_f16_to_f32", reinterpret_cast<void*>(&__hmo_cpu_f16_to_f32)},
      {"__hmo_cpu_f32_to_f16", reinterpret_cast<void*>(&__hmo_cpu_f32_to_f16)},
      {"__hmo_cpu_bf16_to_f32", reinterpret_cast<void*>(&__hmo_cpu_bf16_to_f32)},
      {"__hmo_cpu_f32_to_bf16", reinterpret_cast<void*>(&__hmo_cpu_f32_to_bf16)},
  };
}

}  // namespace hmo::codegen
