#include "onednn_matmul.h"

#include <oneapi/dnnl/dnnl.hpp>

// The OpenMP runtime oneDNN is built with (Debian's libdnnl): its thread
// count for the calling thread; weak so that another oneDNN runtime links.
extern "C" void omp_set_num_threads(int num_threads) __attribute__((weak));

namespace hmo::codegen {
namespace {

dnnl::engine& CpuEngine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);  // never destroyed
  return *engine;
}

}  // namespace

bool OneDnnMatmul(OneDnnProduct product, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                  int64_t rows, int64_t columns, int64_t k, const void* a, int64_t lda,
                  const void* b, int64_t ldb, void* c, int64_t ldc) {
  // oneDNN's exceptions end here: generated code calls this.
  try {
    thread_local const bool one_thread = [] {
      if (omp_set_num_threads != nullptr) omp_set_num_threads(1);
      return true;
    }();
    (void)one_thread;
    using Desc = dnnl::memory::desc;
    using Type = dnnl::memory::data_type;
    const Type in = product == OneDnnProduct::kBf16ToF32 ? Type::bf16 : Type::s8;
    const Type out = product == OneDnnProduct::kBf16ToF32 ? Type::f32 : Type::s32;
    // op(A) is rows x k and op(B) k x columns; a transposed operand is the
    // same bytes read with swapped strides.
    const Desc a_desc(
        {rows, k}, in,
        trans_a == CblasNoTrans ? dnnl::memory::dims{lda, 1} : dnnl::memory::dims{1, lda});
    const Desc b_desc(
        {k, columns}, in,
        trans_b == CblasNoTrans ? dnnl::memory::dims{ldb, 1} : dnnl::memory::dims{1, ldb});
    const Desc c_desc({rows, columns}, out, dnnl::memory::dims{ldc, 1});
    dnnl::engine& engine = CpuEngine();
    const dnnl::matmul::primitive_desc descriptor(dnnl::matmul::desc(a_desc, b_desc, c_desc),
                                                  engine);
    const dnnl::matmul matmul(descriptor);
    thread_local dnnl::stream stream(engine);
    dnnl::memory a_memory(a_desc, engine, const_cast<void*>(a));
    dnnl::memory b_memory(b_desc, engine, const_cast<void*>(b));
    dnnl::memory c_memory(c_desc, engine, c);
    matmul.execute(
        stream, {{DNNL_ARG_SRC, a_memory}, {DNNL_ARG_WEIGHTS, b_memory}, {DNNL_ARG_DST, c_memory}});
    stream.wait();
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace hmo::codegen
