#ifndef HMO_CODEGEN_RUNTIME_INTRA_OP_THREADS_H_
#define HMO_CODEGEN_RUNTIME_INTRA_OP_THREADS_H_

// The threads a partitioned kernel's parts run on (__hmo_cpu_parallel_for,
// runtime_functions.h): the calling thread plus an Eigen thread pool, as
// XLA:CPU runs its parallel loops. One pool per process, created on first
// use.

namespace hmo::codegen {

// How many threads run a partitioned kernel's parts, the caller included
// (at least 1). Default: the machine's hardware threads.
int IntraOpThreadCount();

// Sets that count (values below 1 mean 1), and OpenBLAS's thread count
// (GEMM, convolution) to the same. Not to be called while generated code
// runs: the pool is rebuilt for the new count.
void SetIntraOpThreadCount(int threads);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_INTRA_OP_THREADS_H_
