#include "gpu/codegen/nvptx_compiler.h"

#include <fstream>
#include <memory>
#include <mutex>
#include <set>

#include "gpu/codegen/libdevice_math.h"
#include "hmo/base/status_macros.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/IPO/Internalize.h"

// The NVPTX target's registration functions (libLLVM exports them; the
// generic InitializeAllTargets would register every target).
extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace hmo::gpu {
namespace {

constexpr char kTriple[] = "nvptx64-nvidia-cuda";

void InitializeNvptxOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const NvptxOptions& options) {
  InitializeNvptxOnce();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (target == nullptr) {
    return absl::InternalError("GPU codegen: LLVM has no NVPTX target: " + error);
  }
  llvm::TargetOptions target_options;
  const llvm::CodeGenOpt::Level level =
      options.opt_level <= 0 ? llvm::CodeGenOpt::None
                             : (options.opt_level >= 3 ? llvm::CodeGenOpt::Aggressive : llvm::CodeGenOpt::Default);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      kTriple, options.gpu_architecture, options.ptx_feature, target_options, llvm::Reloc::PIC_,
      llvm::None, level));
  if (machine == nullptr) {
    return absl::InternalError("GPU codegen: cannot create the NVPTX target machine for " +
                               options.gpu_architecture + " " + options.ptx_feature);
  }
  return machine;
}

absl::Status Verify(const llvm::Module& module, std::string_view when) {
  std::string errors;
  llvm::raw_string_ostream stream(errors);
  if (llvm::verifyModule(module, &stream)) {
    return absl::InternalError("GPU codegen produced invalid LLVM IR (" + std::string(when) + "): " + stream.str());
  }
  return absl::OkStatus();
}

absl::Status LinkLibdevice(llvm::Module& module, const std::string& path) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> libdevice = llvm::parseIRFile(path, diagnostic, module.getContext());
  if (libdevice == nullptr) {
    std::string message;
    llvm::raw_string_ostream stream(message);
    diagnostic.print("libdevice", stream);
    return absl::NotFoundError("GPU codegen: cannot load libdevice from '" + path + "': " + stream.str());
  }
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  // libdevice asks __nvvm_reflect("__CUDA_FTZ"); NVVMReflect answers from
  // this flag. 0: keep denormals, as the CPU backend does.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", static_cast<uint32_t>(0));
  if (llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::Flags::LinkOnlyNeeded)) {
    return absl::InternalError("GPU codegen: linking libdevice from '" + path + "' failed");
  }
  return absl::OkStatus();
}

void Optimize(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  // The NVPTX callbacks add NVVMReflect and NVVMIntrRange at the start of
  // every pipeline.
  machine.registerPassBuilderCallbacks(builder);
  llvm::ModulePassManager passes;
  switch (opt_level) {
    case 0: passes = builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0); break;
    case 1: passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1); break;
    case 3: passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3); break;
    default: passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2); break;
  }
  passes.run(module, mam);
}

// Undefined functions that are neither LLVM intrinsics nor used by nobody.
std::vector<std::string> UnresolvedFunctions(const llvm::Module& module) {
  std::vector<std::string> names;
  for (const llvm::Function& f : module.functions()) {
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty()) names.push_back(f.getName().str());
  }
  return names;
}

}  // namespace

absl::StatusOr<PtxResult> CompileToPtx(llvm::Module& module, const std::vector<std::string>& kernel_names,
                                       const NvptxOptions& options) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine, CreateTargetMachine(options));
  module.setTargetTriple(kTriple);
  module.setDataLayout(machine->createDataLayout());
  HMO_RETURN_IF_ERROR(Verify(module, "as emitted"));

  PtxResult result;
  const std::vector<std::string> math = RedirectMathToLibdevice(module);
  if (!math.empty()) {
    if (options.libdevice_path.empty()) {
      return absl::NotFoundError("GPU codegen: the module calls " + math.front() +
                                 " but no libdevice path is configured (set HMO_LIBDEVICE_PATH)");
    }
    HMO_RETURN_IF_ERROR(LinkLibdevice(module, options.libdevice_path));
    result.linked_libdevice = options.libdevice_path;
  }
  const std::set<std::string> keep(kernel_names.begin(), kernel_names.end());
  llvm::internalizeModule(module, [&keep](const llvm::GlobalValue& value) {
    return keep.contains(value.getName().str());
  });
  HMO_RETURN_IF_ERROR(Verify(module, "after linking libdevice"));
  Optimize(module, *machine, options.opt_level);
  HMO_RETURN_IF_ERROR(Verify(module, "after optimization"));

  if (!options.dump_ir_to.empty()) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module.print(stream, nullptr);
    std::ofstream out(options.dump_ir_to, std::ios::binary | std::ios::trunc);
    out << stream.str();
  }
  const std::vector<std::string> unresolved = UnresolvedFunctions(module);
  if (!unresolved.empty()) {
    std::string list;
    for (const std::string& name : unresolved) list += (list.empty() ? "" : ", ") + name;
    return absl::InternalError("GPU codegen: kernels call functions that no library defines: " + list);
  }

  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream stream(ptx);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, stream, nullptr, llvm::CGFT_AssemblyFile)) {
      return absl::InternalError("GPU codegen: the NVPTX target cannot emit PTX");
    }
    codegen.run(module);
  }
  result.ptx = std::string(ptx.str());
  return result;
}

}  // namespace hmo::gpu
