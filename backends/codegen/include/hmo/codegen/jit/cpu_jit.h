// JIT compilation of one LLVM module for the host CPU.
//
// CpuJit owns an ORC ExecutionSession with a single JITDylib into which one
// module is compiled. The module is verified, optimized for the host (native
// CPU features) at the requested level, compiled to an object file and linked
// by RuntimeDyld into one ContiguousSectionMemoryManager reservation.
//
// Parallel compilation (JitOptions::compile_threads > 1, as XLA:CPU splits its
// modules): a module with enough functions is split into parts of about equal
// instruction counts, each optimized and compiled to an object file in a
// context of its own on LLVM's thread pool, and every object is linked into
// the one JITDylib with a reservation of its own; a part reaches the others'
// definitions by name through the GOT and PLT, never PC-relative. Calls in
// the module resolve, in order, to the module's own definitions, to
// JitOptions::symbols (e.g. hmo::codegen::RuntimeSymbols()), and to whatever the
// current process exports (libm's expf/logf/tanhf, libc's memcpy/memset, ...).
//
// Compile links the module eagerly: every externally visible definition is
// materialized before Compile returns, so link errors (an unresolved symbol,
// a section that does not fit) are Compile's errors, and section_sizes() is
// final. The compiled code lives as long as the CpuJit.

#ifndef HMO_CODEGEN_JIT_CPU_JIT_H_
#define HMO_CODEGEN_JIT_CPU_JIT_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace llvm::orc {
class ExecutionSession;
class JITDylib;
class RTDyldObjectLinkingLayer;
class SymbolStringPtr;
}  // namespace llvm::orc

namespace hmo::codegen {

class ContiguousSectionMemoryManager;

// Bytes of the module's reservations that the linker used, per region, and
// the page-rounded size of the reservations, summed over the parts.
struct JitSectionSizes {
  int64_t code_bytes = 0;
  int64_t rodata_bytes = 0;
  int64_t rwdata_bytes = 0;
  int64_t reserved_bytes = 0;
  // Object files the module was compiled into (1 unless it was split).
  int64_t parts = 1;
};

struct JitOptions {
  // LLVM optimization level, 0..3 (O0..O3); it selects both the IR pipeline
  // and the code generator's level.
  int opt_level = 2;
  // Extra symbols the module may reference, by their unmangled names, defined
  // as absolute addresses. They take precedence over the process's symbols.
  std::vector<std::pair<std::string, void*>> symbols;
  // Threads optimizing and compiling the module: the parts it is split into,
  // at most one per 8 function definitions (1: no split).
  int64_t compile_threads = 1;
};

class CpuJit {
 public:
  // Compiles `module` (created in `context`) for the host. Errors:
  //   InvalidArgument  - the module fails the IR verifier (message included)
  //                      or opt_level is outside 0..3;
  //   Internal         - target setup, code generation or linking failed
  //                      (e.g. an undefined symbol), with LLVM's message.
  static absl::StatusOr<std::unique_ptr<CpuJit>> Compile(std::unique_ptr<llvm::LLVMContext> context,
                                                         std::unique_ptr<llvm::Module> module,
                                                         const JitOptions& options);

  ~CpuJit();
  CpuJit(const CpuJit&) = delete;
  CpuJit& operator=(const CpuJit&) = delete;

  // The address of `symbol` (an unmangled name): a definition of the module,
  // one of JitOptions::symbols, or a process symbol. NotFound names the
  // symbol when it resolves nowhere. Safe to call from several threads.
  absl::StatusOr<void*> Lookup(std::string_view symbol);

  // Use of the module's reservations (see JitSectionSizes).
  const JitSectionSizes& section_sizes() const { return section_sizes_; }

  // The reservation of the module's first object file (its only one unless
  // the module was split), [reservation_begin(), reservation_end());
  // null/null when the module needed no memory. Every code and data section
  // of that object lies inside it.
  const void* reservation_begin() const { return reservation_begin_; }
  const void* reservation_end() const { return reservation_end_; }
  // The page-aligned starts of the code, read-only and read-write regions
  // inside the reservation (each null when the region is empty).
  const void* code_region_begin() const { return code_begin_; }
  const void* rodata_region_begin() const { return rodata_begin_; }
  const void* rwdata_region_begin() const { return rwdata_begin_; }

 private:
  CpuJit();

  // Compile's work, once the module's context is known to outlive `module`.
  static absl::StatusOr<std::unique_ptr<CpuJit>> CompileOwned(std::unique_ptr<llvm::Module> module,
                                                              const JitOptions& options);

  // Collects errors the ExecutionSession reports asynchronously (materializa-
  // tion failures), so that a failed lookup can say why.
  void RecordSessionError(std::string message);
  std::string TakeSessionErrors();
  // `name` with the target's global symbol prefix, interned in the session.
  llvm::orc::SymbolStringPtr Intern(std::string_view name);

  std::unique_ptr<llvm::orc::ExecutionSession> session_;
  std::unique_ptr<llvm::orc::RTDyldObjectLinkingLayer> object_layer_;
  llvm::orc::JITDylib* dylib_ = nullptr;
  char global_prefix_ = '\0';
  // One per object file, in the order the linker asked for them; owned by
  // object_layer_ once created, valid until the session ends.
  std::mutex memory_managers_mutex_;
  std::vector<ContiguousSectionMemoryManager*> memory_managers_;

  JitSectionSizes section_sizes_;
  const void* reservation_begin_ = nullptr;
  const void* reservation_end_ = nullptr;
  const void* code_begin_ = nullptr;
  const void* rodata_begin_ = nullptr;
  const void* rwdata_begin_ = nullptr;

  std::mutex session_errors_mutex_;
  std::string session_errors_;
};

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_JIT_CPU_JIT_H_
