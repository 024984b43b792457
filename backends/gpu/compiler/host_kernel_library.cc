#include "gpu/compiler/host_kernel_library.h"

#include <algorithm>
#include <utility>

#include "gpu/codegen/gpu_kernel_emitter.h"
#include "hmo/base/status_macros.h"
#include "hmo/codegen/jit/cpu_jit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace hmo::gpu {
namespace {

// The special registers a kernel reads, and the host global replacing each.
struct SpecialRegister {
  llvm::Intrinsic::ID id;
  const char* global;
};
constexpr SpecialRegister kRegisters[4] = {
    {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, "hmo_emulated_tid_x"},
    {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, "hmo_emulated_ctaid_x"},
    {llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x, "hmo_emulated_ntid_x"},
    {llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, "hmo_emulated_nctaid_x"},
};

// Replaces every call of a special-register intrinsic by a load of its
// global; any other NVVM intrinsic has no host meaning and is an error.
absl::Status RewriteForHost(llvm::Module& module) {
  llvm::Type* i32 = llvm::Type::getInt32Ty(module.getContext());
  for (const SpecialRegister& reg : kRegisters) {
    auto* global = new llvm::GlobalVariable(module, i32, /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage,
                                            llvm::ConstantInt::get(i32, 0), reg.global);
    llvm::Function* intrinsic = module.getFunction(llvm::Intrinsic::getName(reg.id));
    if (intrinsic == nullptr) continue;
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* user : intrinsic->users()) {
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(user)) calls.push_back(call);
    }
    for (llvm::CallInst* call : calls) {
      llvm::IRBuilder<> b(call);
      // Volatile: the value changes between calls of the same kernel.
      llvm::LoadInst* load = b.CreateLoad(i32, global, reg.global);
      load->setVolatile(true);
      call->replaceAllUsesWith(load);
      call->eraseFromParent();
    }
    intrinsic->eraseFromParent();
  }
  for (const llvm::Function& function : module) {
    if (function.getName().startswith("llvm.nvvm.")) {
      return absl::UnimplementedError("GPU host emulation: kernel IR uses " + function.getName().str());
    }
  }
  if (llvm::NamedMDNode* annotations = module.getNamedMetadata("nvvm.annotations")) {
    module.eraseNamedMetadata(annotations);
  }
  return absl::OkStatus();
}

}  // namespace

HostKernelLibrary::~HostKernelLibrary() = default;

absl::StatusOr<std::unique_ptr<HostKernelLibrary>> HostKernelLibrary::Compile(const HloModule& module,
                                                                              const BufferAssignment& assignment,
                                                                              int opt_level) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>("hmo_gpu_host." + module.name(), *context);
  HMO_ASSIGN_OR_RETURN(std::vector<KernelIr> kernels, EmitKernelIr(module, assignment, *llvm_module));
  HMO_RETURN_IF_ERROR(RewriteForHost(*llvm_module));

  codegen::JitOptions options;
  options.opt_level = opt_level;
  options.symbols = codegen::RuntimeSymbols();
  HMO_ASSIGN_OR_RETURN(
      std::unique_ptr<codegen::CpuJit> jit,
      codegen::CpuJit::Compile(std::move(context), std::move(llvm_module), options));
  auto library = std::unique_ptr<HostKernelLibrary>(new HostKernelLibrary());
  for (int r = 0; r < 4; ++r) {
    HMO_ASSIGN_OR_RETURN(void* address, jit->Lookup(kRegisters[r].global));
    library->registers_[r] = static_cast<int32_t*>(address);
  }
  for (const KernelIr& kernel : kernels) {
    HMO_ASSIGN_OR_RETURN(void* address, jit->Lookup(kernel.name));
    library->names_.push_back(kernel.name);
    library->functions_.push_back(reinterpret_cast<KernelFunction>(address));
  }
  library->kernels_ = std::move(kernels);
  library->jit_ = std::move(jit);
  return library;
}

absl::StatusOr<int64_t> HostKernelLibrary::Find(const std::string& name) const {
  auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) return absl::NotFoundError("GPU host emulation: no host kernel " + name);
  return static_cast<int64_t>(it - names_.begin());
}

void HostKernelLibrary::Run(int64_t index, const LaunchDimensions& launch, char** buffer_table) const {
  const int32_t blocks = static_cast<int32_t>(std::clamp<int64_t>(launch.blocks, 1, kMaxBlocks));
  const int32_t threads = static_cast<int32_t>(std::clamp<int64_t>(launch.threads_per_block, 1, kMaxThreads));
  std::lock_guard<std::mutex> lock(run_mutex_);
  *registers_[2] = threads;
  *registers_[3] = blocks;
  for (int32_t block = 0; block < blocks; ++block) {
    *registers_[1] = block;
    for (int32_t thread = 0; thread < threads; ++thread) {
      *registers_[0] = thread;
      functions_[index](buffer_table);
    }
  }
}

}  // namespace hmo::gpu
