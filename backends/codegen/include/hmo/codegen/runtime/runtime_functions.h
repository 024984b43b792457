// The library functions that JIT-compiled CPU code calls.
//
// Generated code declares each function below with the matching LLVM type and
// calls it by name; the JIT resolves the names to the addresses listed by
// hmo::codegen::RuntimeSymbols() (passed as JitOptions::symbols), so nothing here
// has to be exported from the plugin's shared object.
//
// Conventions shared by every function:
//   - All arrays are dense and row-major in the order the comment states;
//     generated code transposes (copies) operands whose layout differs.
//   - Sizes and counts are int64_t; boolean flags are int32_t (0 = false).
//   - Output buffers never alias input buffers unless a comment says so.
//   - Sizes handed to BLAS (GEMM m, n, k; a convolution's output pixels per
//     image, output features and kernel_rows*kernel_cols*input_features per
//     group) must be below 2^31, BLAS's int.
//   - The functions cannot fail: their preconditions are the caller's to keep
//     (codegen validates shapes before emitting a call), and they never throw.

#ifndef HMO_CODEGEN_RUNTIME_RUNTIME_FUNCTIONS_H_
#define HMO_CODEGEN_RUNTIME_RUNTIME_FUNCTIONS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

extern "C" {

// ---------------------------------------------------------------------------
// Batched matrix multiplication (BLAS; oneDNN for bf16 and s8).
//
// For each b in [0, batch):
//   out[b] (m x n, row-major) = op(lhs[b]) * op(rhs[b])
// where lhs[b] is m x k row-major (stored k x m when transpose_lhs != 0) and
// rhs[b] is k x n row-major (stored n x k when transpose_rhs != 0). The batches
// of every array are contiguous: lhs[b] starts at lhs + b*m*k, rhs[b] at
// rhs + b*k*n and out[b] at out + b*m*n. `out` is overwritten (not accumulated
// into). m, n or k may be 0; with k == 0 the output is all zeros.
void __hmo_cpu_gemm_f32(float* out, const float* lhs, const float* rhs, int64_t batch, int64_t m,
                        int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs);
void __hmo_cpu_gemm_f64(double* out, const double* lhs, const double* rhs, int64_t batch, int64_t m,
                        int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs);
// The same with bf16 operands (their bits) and an f32 result: the products
// of the bf16 values accumulated in f32 (oneDNN).
void __hmo_cpu_gemm_bf16_f32(float* out, const uint16_t* lhs, const uint16_t* rhs, int64_t batch,
                             int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                             int32_t transpose_rhs);
// With f16 operands (their bits) and an f32 result: the products of the f16
// values accumulated in f32 (the BLAS on blocks widened into bounded
// per-thread scratch).
void __hmo_cpu_gemm_f16_f32(float* out, const uint16_t* lhs, const uint16_t* rhs, int64_t batch,
                            int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                            int32_t transpose_rhs);
// And with s8 operands and an s32 result (accumulated in s32; oneDNN).
void __hmo_cpu_gemm_s8_s32(int32_t* out, const int8_t* lhs, const int8_t* rhs, int64_t batch,
                           int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                           int32_t transpose_rhs);

// ---------------------------------------------------------------------------
// Matrix multiplication with an epilogue (an output fusion's dot).
//
// The product of the GEMMs above (same operands, sizes and flags) is
// computed a tile at a time, and each tile is handed to
//   epilogue(buffer_table, tile, tile_ld, batch_index, row_begin, row_end,
//            column_begin, column_end)
// right after it is computed: the tile holds rows [row_begin, row_end) and
// columns [column_begin, column_end) of product `batch_index`, row-major
// with leading dimension tile_ld (f32 / f64 / s32 as the GEMM's result).
// The epilogue (generated code) computes and stores the fusion's output over
// that region. With `product_out` null the tiles are scratch the runtime
// owns (at most 2^20 elements per intra-op thread); otherwise the product is
// written to product_out (batch x m x n, row-major, as the GEMMs above write
// `out`) and each tile is its region there, which the epilogue may then
// overwrite in place. Every element of every product is in exactly one tile;
// tiles may be handed over concurrently from the intra-op threads, so an
// epilogue writes only its region's outputs.
typedef void (*HmoCpuGemmEpilogue)(char** buffer_table, const void* tile, int64_t tile_ld,
                                   int64_t batch_index, int64_t row_begin, int64_t row_end,
                                   int64_t column_begin, int64_t column_end);
void __hmo_cpu_gemm_epilogue_f32(const float* lhs, const float* rhs, int64_t batch, int64_t m,
                                 int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs,
                                 float* product_out, HmoCpuGemmEpilogue epilogue,
                                 char** buffer_table);
void __hmo_cpu_gemm_epilogue_f64(const double* lhs, const double* rhs, int64_t batch, int64_t m,
                                 int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs,
                                 double* product_out, HmoCpuGemmEpilogue epilogue,
                                 char** buffer_table);
void __hmo_cpu_gemm_epilogue_bf16_f32(const uint16_t* lhs, const uint16_t* rhs, int64_t batch,
                                      int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                      int32_t transpose_rhs, float* product_out,
                                      HmoCpuGemmEpilogue epilogue, char** buffer_table);
void __hmo_cpu_gemm_epilogue_f16_f32(const uint16_t* lhs, const uint16_t* rhs, int64_t batch,
                                     int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                     int32_t transpose_rhs, float* product_out,
                                     HmoCpuGemmEpilogue epilogue, char** buffer_table);
void __hmo_cpu_gemm_epilogue_s8_s32(const int8_t* lhs, const int8_t* rhs, int64_t batch, int64_t m,
                                    int64_t n, int64_t k, int32_t transpose_lhs,
                                    int32_t transpose_rhs, int32_t* product_out,
                                    HmoCpuGemmEpilogue epilogue, char** buffer_table);

// ---------------------------------------------------------------------------
// Partitioned kernels.
//
// A part of a kernel: computes part `part` (0 <= part < parts) of the
// kernel's output; the parts together compute it once, and different parts
// write different bytes.
typedef void (*HmoCpuKernelPart)(char** buffer_table, int64_t part, int64_t parts);
// Runs part(buffer_table, p, parts) for every p in [0, parts), where parts =
// min(max_parts, the intra-op thread count: intra_op_threads.h), on the
// calling thread and the intra-op pool, and returns when all have returned.
void __hmo_cpu_parallel_for(HmoCpuKernelPart part, char** buffer_table, int64_t max_parts);

// ---------------------------------------------------------------------------
// Kernels run concurrently.
//
// One node per kernel of a stretch of a computation's kernels: `kernel` is a
// `void kernel(char** buffer_table)` when parts == 1, else an
// HmoCpuKernelPart run through __hmo_cpu_parallel_for(kernel, table, parts).
// `on_calling_thread` != 0 keeps the node on the calling thread: a kernel
// that runs in parts, or calls a runtime function running on the intra-op
// pool (GEMM, convolution, sort), must start there for the pool to take
// its work (a call from a pool thread runs on that thread alone). The
// node's successors are successors[first_successor, first_successor +
// successor_count): nodes that may start only after it returned;
// `predecessors` is how many nodes list it as a successor. The graph is
// acyclic and every node follows its predecessors in array order.
typedef struct {
  void* kernel;
  int64_t parts;
  int64_t on_calling_thread;
  int64_t predecessors;
  int64_t first_successor;
  int64_t successor_count;
} HmoCpuKernelNode;
// Runs every node once, each after its predecessors returned, on the calling
// thread and the intra-op pool: independent kernels run at the same time,
// nodes on_calling_thread only on the calling thread. Returns when every
// node has returned.
void __hmo_cpu_run_kernel_graph(const HmoCpuKernelNode* nodes, int64_t count,
                                const int64_t* successors, char** buffer_table);

// ---------------------------------------------------------------------------
// 2-D convolution, f32.
//
// Layouts (all dense, row-major in the order written):
//   input  [batch, input_rows, input_cols, input_features]            (NHWC)
//   filter [kernel_rows, kernel_cols, input_features / feature_group_count,
//           output_features]                                          (HWIO)
//   output [batch, output_rows, output_cols, output_features]         (NHWC)
//
// Semantics (the HLO convolution with batch_group_count == 1): the input is
// first dilated by lhs_dilation (dilation d puts d-1 zeros between adjacent
// elements, so a size-s dimension becomes (s-1)*d+1 long), then padded with
// pad_low zeros before and pad_high zeros after (negative padding crops); the
// kernel is dilated by rhs_dilation the same way. Output position (r, c) reads
// the padded, dilated input at row r*stride_rows + kr*rhs_dilation_rows (and
// likewise for columns) for every kernel tap kr. The caller computes
// output_rows/output_cols from these (the standard
// floor((padded - dilated_kernel) / stride) + 1) and passes them.
//
// Feature groups: with G = feature_group_count, input feature block g
// (features [g*C/G, (g+1)*C/G)) is convolved only with output feature block g
// (features [g*O/G, (g+1)*O/G)). input_features and output_features must be
// divisible by G. Depthwise convolution is G == input_features.
//
// A 1-D convolution is a 2-D one with rows (input, kernel, output) of size 1.
struct HmoCpuConv2DShape {
  int64_t batch;
  int64_t input_rows;
  int64_t input_cols;
  int64_t input_features;  // C: all input features, across every group.
  int64_t kernel_rows;
  int64_t kernel_cols;
  int64_t output_features;  // O: all output features, across every group.
  int64_t output_rows;
  int64_t output_cols;
  int64_t stride_rows;  // >= 1
  int64_t stride_cols;  // >= 1
  int64_t pad_low_rows;
  int64_t pad_high_rows;
  int64_t pad_low_cols;
  int64_t pad_high_cols;
  int64_t lhs_dilation_rows;    // >= 1; input (base) dilation
  int64_t lhs_dilation_cols;    // >= 1
  int64_t rhs_dilation_rows;    // >= 1; kernel (window) dilation
  int64_t rhs_dilation_cols;    // >= 1
  int64_t feature_group_count;  // >= 1
};

// Writes the convolution of `input` with `filter` described by `shape` to
// `output` (overwritten). Grouped convolutions run one im2col + SGEMM per
// group; depthwise ones (one input feature per group) run a direct loop.
// `shape` is only read during the call.
void __hmo_cpu_conv2d_f32(float* output, const float* input, const float* filter,
                          const HmoCpuConv2DShape* shape);

// The same for bf16 input, filter and output (raw bf16 bits): the exact
// products of the bf16 values accumulated in f32 (oneDNN's bf16 GEMM on the
// bf16 patches) and each result rounded to bf16 (nearest even) once, as
// XLA:CPU computes a bf16 convolution. Its scratch (patches, f32 products) is
// bounded per band of output rows, not by the operands' sizes.
void __hmo_cpu_conv2d_bf16(uint16_t* output, const uint16_t* input, const uint16_t* filter,
                           const HmoCpuConv2DShape* shape);
// And for f16 (raw f16 bits): the same arithmetic, its GEMMs on f16 patches
// (the BLAS on blocks widened into bounded scratch), rounded to f16 once.
void __hmo_cpu_conv2d_f16(uint16_t* output, const uint16_t* input, const uint16_t* filter,
                          const HmoCpuConv2DShape* shape);

// A convolution with an epilogue (an output fusion): the convolution above,
// its output handed to `epilogue` (HmoCpuGemmEpilogue) a tile at a time as
// the product of one GEMM whose rows are the output pixels (batch, row,
// column, row-major) and whose columns are the output features; batch_index
// is 0. A bf16 (f16) tile holds the rounded bf16 (f16) results. With `product_out` null
// the tiles are scratch the runtime owns (bounded per intra-op thread as the
// convolution's other scratch); otherwise the output is written to
// product_out (NHWC, as `output` above) and each tile is its region there,
// which the epilogue may overwrite in place. Every output element is in
// exactly one tile; tiles are handed over concurrently from the intra-op
// threads.
void __hmo_cpu_conv2d_epilogue_f32(const float* input, const float* filter,
                                   const HmoCpuConv2DShape* shape, float* product_out,
                                   HmoCpuGemmEpilogue epilogue, char** buffer_table);
void __hmo_cpu_conv2d_epilogue_bf16(const uint16_t* input, const uint16_t* filter,
                                    const HmoCpuConv2DShape* shape, uint16_t* product_out,
                                    HmoCpuGemmEpilogue epilogue, char** buffer_table);
void __hmo_cpu_conv2d_epilogue_f16(const uint16_t* input, const uint16_t* filter,
                                   const HmoCpuConv2DShape* shape, uint16_t* product_out,
                                   HmoCpuGemmEpilogue epilogue, char** buffer_table);

// ---------------------------------------------------------------------------
// Multi-operand sort.
//
// Each operand i is an array of shape [outer, sort_size, inner] (dense,
// row-major) of element_bytes[i]-byte elements; operands[i] points at its
// first byte. For every (o, j) in [0, outer) x [0, inner), the sort_size
// elements at operands[i] + ((o*sort_size + s)*inner + j)*element_bytes[i],
// s in [0, sort_size), are permuted in place — every operand by the same
// permutation — into the order that `less_than` defines.
//
// less_than(result, elements) compares two positions `a` (lhs) and `b` (rhs):
// `elements` holds 2*num_operands pointers, in the order
//   lhs of operand 0, rhs of operand 0, lhs of operand 1, rhs of operand 1, ...
// and the comparator writes 1 to the byte at `result` when lhs sorts strictly
// before rhs, else 0. It must be a strict weak order for the result to be
// sorted; an inconsistent comparator (e.g. one ordering NaNs badly) yields
// some permutation of the inputs but never reads or writes out of bounds.
//
// The sort is always stable (equal elements keep their input order), so
// is_stable only records what the HLO asked for.
void __hmo_cpu_sort(int64_t outer, int64_t sort_size, int64_t inner, int32_t num_operands,
                    char** operands, const int64_t* element_bytes, int32_t is_stable,
                    void (*less_than)(char* result_pred_i8, char** elements));

// ---------------------------------------------------------------------------
// Half- and bfloat16-precision conversions, for targets or code paths where
// generated code does not emit the conversion inline. Values are passed as
// their raw 16-bit patterns.

// IEEE binary16 -> binary32; exact (subnormals, infinities and NaNs kept).
float __hmo_cpu_f16_to_f32(uint16_t value);
// binary32 -> IEEE binary16, rounding to nearest, ties to even; overflow gives
// infinity, NaNs stay (quiet) NaNs with the sign kept.
uint16_t __hmo_cpu_f32_to_f16(float value);
// bfloat16 -> binary32; exact.
float __hmo_cpu_bf16_to_f32(uint16_t value);
// binary32 -> bfloat16, rounding to nearest, ties to even; NaNs stay NaNs.
uint16_t __hmo_cpu_f32_to_bf16(float value);

}  // extern "C"

namespace hmo::codegen {

// Every function declared above, as (symbol name, address) pairs, for
// JitOptions::symbols. The names are exactly the C names above.
std::vector<std::pair<std::string, void*>> RuntimeSymbols();

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_RUNTIME_FUNCTIONS_H_
