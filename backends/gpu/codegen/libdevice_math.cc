#include "gpu/codegen/libdevice_math.h"

#include <set>

#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"

namespace hmo::gpu {
namespace {

struct MathEntry {
  const char* source;  // intrinsic base name or the f64 libm name
  const char* f32;
  const char* f64;
};

constexpr MathEntry kLibdeviceMath[] = {
    // LLVM intrinsics (base names; the type suffix varies).
    {"llvm.exp", "__nv_expf", "__nv_exp"},
    {"llvm.exp2", "__nv_exp2f", "__nv_exp2"},
    {"llvm.log", "__nv_logf", "__nv_log"},
    {"llvm.log2", "__nv_log2f", "__nv_log2"},
    {"llvm.log10", "__nv_log10f", "__nv_log10"},
    {"llvm.sin", "__nv_sinf", "__nv_sin"},
    {"llvm.cos", "__nv_cosf", "__nv_cos"},
    {"llvm.pow", "__nv_powf", "__nv_pow"},
    {"llvm.round", "__nv_roundf", "__nv_round"},
    // libm (f64 name; the f32 one has an 'f' suffix).
    {"expm1", "__nv_expm1f", "__nv_expm1"},
    {"log1p", "__nv_log1pf", "__nv_log1p"},
    {"cbrt", "__nv_cbrtf", "__nv_cbrt"},
    {"tanh", "__nv_tanhf", "__nv_tanh"},
    {"tan", "__nv_tanf", "__nv_tan"},
    {"erf", "__nv_erff", "__nv_erf"},
    {"atan2", "__nv_atan2f", "__nv_atan2"},
    {"exp", "__nv_expf", "__nv_exp"},
    {"log", "__nv_logf", "__nv_log"},
    {"sin", "__nv_sinf", "__nv_sin"},
    {"cos", "__nv_cosf", "__nv_cos"},
    {"pow", "__nv_powf", "__nv_pow"},
};

// The bit width of a function's floating-point result, or 0.
int FloatBits(const llvm::Function& f) {
  llvm::Type* type = f.getReturnType();
  if (type->isFloatTy()) return 32;
  if (type->isDoubleTy()) return 64;
  return 0;
}

}  // namespace

std::string LibdeviceNameFor(const std::string& name, int bits) {
  for (const MathEntry& entry : kLibdeviceMath) {
    const std::string source = entry.source;
    if (source.rfind("llvm.", 0) == 0) {
      if (name == source) return bits == 32 ? entry.f32 : bits == 64 ? entry.f64 : "";
      continue;
    }
    if (bits == 64 && name == source) return entry.f64;
    if (bits == 32 && name == source + "f") return entry.f32;
  }
  return "";
}

std::vector<std::string> RedirectMathToLibdevice(llvm::Module& module) {
  std::vector<llvm::Function*> declarations;
  for (llvm::Function& f : module.functions()) {
    if (f.isDeclaration()) declarations.push_back(&f);
  }
  std::set<std::string> used;
  for (llvm::Function* f : declarations) {
    const int bits = FloatBits(*f);
    if (bits == 0) continue;
    std::string key = f->getName().str();
    if (f->isIntrinsic()) {
      // "llvm.exp.f32" -> "llvm.exp".
      key = llvm::Intrinsic::getBaseName(f->getIntrinsicID()).str();
    }
    const std::string target = LibdeviceNameFor(key, bits);
    if (target.empty() || target == f->getName()) continue;
    llvm::FunctionCallee callee = module.getOrInsertFunction(target, f->getFunctionType());
    f->replaceAllUsesWith(callee.getCallee());
    f->eraseFromParent();
    used.insert(target);
  }
  return {used.begin(), used.end()};
}

}  // namespace hmo::gpu
