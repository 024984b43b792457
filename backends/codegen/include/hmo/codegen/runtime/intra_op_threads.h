#ifndef HMO_CODEGEN_RUNTIME_INTRA_OP_THREADS_H_
#define HMO_CODEGEN_RUNTIME_INTRA_OP_THREADS_H_

// The threads a partitioned kernel's parts and the BLAS calls' slices run on
// (__hmo_cpu_parallel_for and __hmo_cpu_gemm_*, runtime_functions.h): the
// calling thread plus an Eigen thread pool, as
// XLA:CPU runs its parallel loops. One pool per process, created on first
// use.

#include <cstdint>
#include <functional>

namespace hmo::codegen {

// How many threads run a partitioned kernel's parts, the caller included
// (at least 1). Default: the machine's hardware threads.
int IntraOpThreadCount();

// Sets that count (values below 1 mean 1). Not to be called while generated
// code runs: the pool is rebuilt for the new count.
void SetIntraOpThreadCount(int threads);

// Runs body(part, parts) for every part in [0, parts), parts =
// min(max_parts, IntraOpThreadCount()), on the calling thread and the pool,
// and returns when every part has returned. Each part runs on the thread
// that claims it first: the caller runs every part no pool thread has
// started, so it never waits behind other callers' work queued on the pool
// (the devices of a replicated run call it concurrently). Called from a pool
// thread (a nested call), it runs body(0, 1) there. One pool serves the
// kernels and the BLAS calls: OpenBLAS runs single-threaded inside each part
// (set when the pool is first used), so the library's own threads never
// spin against the pool's.
void ForEachIntraOpPart(int64_t max_parts,
                        const std::function<void(int64_t part, int64_t parts)>& body);

// Queues `task` on up to min(max_tasks, IntraOpThreadCount() - 1) pool
// threads (one copy each) and returns how many were queued: none when the
// pool has no thread or the caller is a pool thread. The tasks run later, in
// any order, possibly after the caller went on: what they use must outlive
// them.
int ScheduleOnIntraOpPool(int max_tasks, const std::function<void()>& task);

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_INTRA_OP_THREADS_H_
