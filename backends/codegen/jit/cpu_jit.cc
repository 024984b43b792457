#include "hmo/codegen/jit/cpu_jit.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hmo/codegen/jit/contiguous_section_memory_manager.h"
#include "hmo/codegen/jit/math_approximations.h"
#include "hmo/base/status_macros.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/JITSymbol.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutorProcessControl.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalValue.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Object/SymbolSize.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#if LLVM_VERSION_MAJOR >= 17
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorSymbolDef.h"
#endif

namespace hmo::codegen {
namespace {

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

void InitializeNativeTargetOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::CodeGenOpt::Level CodeGenLevel(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOpt::None;
    case 1:
      return llvm::CodeGenOpt::Less;
    case 2:
      return llvm::CodeGenOpt::Default;
    default:
      return llvm::CodeGenOpt::Aggressive;
  }
}

llvm::OptimizationLevel IrLevel(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::OptimizationLevel::O0;
    case 1:
      return llvm::OptimizationLevel::O1;
    case 2:
      return llvm::OptimizationLevel::O2;
    default:
      return llvm::OptimizationLevel::O3;
  }
}

// Runs the new pass manager's default pipeline for `opt_level`, with the
// target machine's cost model so vectorization uses the host's vector width.
void Optimize(llvm::Module& module, llvm::TargetMachine& target_machine, int opt_level) {
  llvm::LoopAnalysisManager loop_analyses;
  llvm::FunctionAnalysisManager function_analyses;
  llvm::CGSCCAnalysisManager cgscc_analyses;
  llvm::ModuleAnalysisManager module_analyses;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  // Below O3 loops are not unrolled (only where the IR forces it): kernels
  // are loop nests over large arrays whose inner loop the vectorizer already
  // widens and interleaves, and unrolling the nests multiplies code size and
  // compile time (bench/jax_corpus/speed.py measures both).
  tuning.LoopUnrolling = opt_level >= 3;
  llvm::PassBuilder builder(&target_machine, tuning);
  builder.registerModuleAnalyses(module_analyses);
  builder.registerCGSCCAnalyses(cgscc_analyses);
  builder.registerFunctionAnalyses(function_analyses);
  builder.registerLoopAnalyses(loop_analyses);
  builder.crossRegisterProxies(loop_analyses, function_analyses, cgscc_analyses, module_analyses);
  llvm::ModulePassManager passes = opt_level == 0
                                       ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                       : builder.buildPerModuleDefaultPipeline(IrLevel(opt_level));
  passes.run(module, module_analyses);
}

// The names the object file will export to the JITDylib: definitions that
// are not local to the module.
std::vector<std::string> LinkedDefinitions(const llvm::Module& module) {
  std::vector<std::string> names;
  for (const llvm::GlobalValue& value : module.global_values()) {
    if (value.isDeclaration() || value.hasLocalLinkage() || value.hasAvailableExternallyLinkage() ||
        value.getName().empty()) {
      continue;
    }
    names.push_back(value.getName().str());
  }
  return names;
}

// An upper bound on the GOT bytes RuntimeDyld allocates without announcing
// them (see ContiguousSectionMemoryManager's constructor): one pointer per
// relocation against a symbol the object does not define.
absl::StatusOr<size_t> UnannouncedGotBytes(const llvm::MemoryBuffer& object_buffer) {
  auto object = llvm::object::ObjectFile::createObjectFile(object_buffer.getMemBufferRef());
  if (!object) {
    return absl::InternalError(
        absl::StrCat("cannot read the compiled object file: ", ErrorText(object.takeError())));
  }
  size_t external_references = 0;
  for (const llvm::object::SectionRef& section : (*object)->sections()) {
    for (const llvm::object::RelocationRef& relocation : section.relocations()) {
      const llvm::object::symbol_iterator symbol = relocation.getSymbol();
      if (symbol == (*object)->symbol_end()) continue;
      auto flags = symbol->getFlags();
      if (!flags) {
        return absl::InternalError(absl::StrCat("cannot read a symbol of the object file: ",
                                                ErrorText(flags.takeError())));
      }
      if (*flags & llvm::object::SymbolRef::SF_Undefined) ++external_references;
    }
  }
  return external_references * sizeof(void*);
}

// The sizes of the functions `object_buffer` defines, by name.
std::map<std::string, uint64_t> FunctionSizes(const llvm::MemoryBuffer& object_buffer) {
  std::map<std::string, uint64_t> sizes;
  auto object = llvm::object::ObjectFile::createObjectFile(object_buffer.getMemBufferRef());
  if (!object) {
    llvm::consumeError(object.takeError());
    return sizes;
  }
  for (const auto& [symbol, size] : llvm::object::computeSymbolSizes(**object)) {
    auto type = symbol.getType();
    auto name = symbol.getName();
    if (!type || !name || *type != llvm::object::SymbolRef::ST_Function) {
      if (!type) llvm::consumeError(type.takeError());
      if (!name) llvm::consumeError(name.takeError());
      continue;
    }
    sizes[name->str()] = size;
  }
  return sizes;
}

// With HMO_PERF_MAP set, appends the linked functions to
// /tmp/perf-<pid>.map, the file perf reads to name JIT-compiled code
// ("address size name" per line), so `perf report` names the kernels.
void AppendPerfMap(const std::map<std::string, uint64_t>& sizes, CpuJit& jit) {
  const char* wanted = std::getenv("HMO_PERF_MAP");
  if (wanted == nullptr || *wanted == '\0' || sizes.empty()) return;
  const std::string path = absl::StrCat("/tmp/perf-", ::getpid(), ".map");
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) return;
  for (const auto& [name, size] : sizes) {
    absl::StatusOr<void*> address = jit.Lookup(name);
    if (!address.ok() || size == 0) continue;
    std::fprintf(file, "%lx %lx %s\n", reinterpret_cast<unsigned long>(*address),
                 static_cast<unsigned long>(size), name.c_str());
  }
  std::fclose(file);
}

// What compiling one module (or one part of a split module) produced.
struct CompiledObject {
  std::unique_ptr<llvm::MemoryBuffer> object;
  // The names it defines for the JITDylib (LinkedDefinitions).
  std::vector<std::string> definitions;
  // UnannouncedGotBytes of the object.
  size_t got_bytes = 0;
};

// Optimizes `module` for `target_machine` and compiles it to an object file.
absl::StatusOr<CompiledObject> CompileToObject(llvm::Module& module,
                                               llvm::TargetMachine& target_machine, int opt_level) {
  Optimize(module, target_machine, opt_level);
  CompiledObject compiled;
  compiled.definitions = LinkedDefinitions(module);
  llvm::orc::SimpleCompiler compiler(target_machine);
  auto object = compiler(module);
  if (!object) {
    return absl::InternalError(
        absl::StrCat("code generation failed: ", ErrorText(object.takeError())));
  }
  HMO_ASSIGN_OR_RETURN(compiled.got_bytes, UnannouncedGotBytes(**object));
  compiled.object = std::move(*object);
  return compiled;
}

// A module is split for a parallel compile only when each part gets at least
// this many function definitions: below it the per-part costs (a bitcode
// round trip, a target machine, a reservation) outweigh the gain.
constexpr int64_t kMinFunctionsPerPart = 8;

int64_t InstructionCount(const llvm::Function& function) {
  int64_t count = 0;
  for (const llvm::BasicBlock& block : function) count += static_cast<int64_t>(block.size());
  return count;
}

// Splits `module` into `parts` modules whose definitions partition its own,
// as bitcode (each part is parsed into a context of its own to be compiled on
// its own thread). Functions are dealt to the part with the fewest
// instructions so far, largest first, so the parts take about equally long;
// variables go to part 0. Every local definition becomes an external one so
// the parts link by name; a part reaches another part's definitions through
// the GOT and PLT (not dso_local), so the parts' reservations may lie any
// distance apart.
std::vector<llvm::SmallVector<char, 0>> SplitIntoBitcodeParts(llvm::Module& module, int64_t parts) {
  int unnamed = 0;
  for (llvm::GlobalValue& value : module.global_values()) {
    if (value.hasLocalLinkage()) {
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::DefaultVisibility);
    }
    if (!value.hasName()) value.setName(absl::StrCat("__hmo_part_unnamed.", unnamed++));
  }
  std::vector<const llvm::Function*> functions;
  for (const llvm::Function& function : module) {
    if (!function.isDeclaration()) functions.push_back(&function);
  }
  std::vector<std::pair<int64_t, const llvm::Function*>> by_size;
  for (const llvm::Function* function : functions)
    by_size.emplace_back(InstructionCount(*function), function);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<int64_t> load(static_cast<size_t>(parts), 0);
  llvm::DenseMap<const llvm::GlobalValue*, int64_t> owner;
  for (const auto& [size, function] : by_size) {
    const int64_t part = std::min_element(load.begin(), load.end()) - load.begin();
    owner[function] = part;
    load[part] += size;
  }
  std::vector<llvm::SmallVector<char, 0>> bitcode(static_cast<size_t>(parts));
  for (int64_t part = 0; part < parts; ++part) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue* value) {
          auto it = owner.find(value);
          return (it == owner.end() ? 0 : it->second) == part;
        });
    for (llvm::GlobalValue& value : clone->global_values()) {
      if (!value.hasLocalLinkage()) value.setDSOLocal(!value.isDeclaration());
    }
    llvm::raw_svector_ostream stream(bitcode[part]);
    llvm::WriteBitcodeToFile(*clone, stream);
  }
  return bitcode;
}

// Compiles the parts on up to `threads` threads of LLVM's thread pool, each in
// a context of its own (an LLVMContext is not thread-safe).
absl::StatusOr<std::vector<CompiledObject>> CompileParts(
    const std::vector<llvm::SmallVector<char, 0>>& parts,
    const llvm::orc::JITTargetMachineBuilder& target_builder, int opt_level, int64_t threads) {
  std::vector<absl::StatusOr<CompiledObject>> results;
  for (size_t i = 0; i < parts.size(); ++i)
    results.emplace_back(absl::InternalError("not compiled"));
  {
    llvm::ThreadPool pool(llvm::hardware_concurrency(static_cast<unsigned>(threads)));
    for (size_t i = 0; i < parts.size(); ++i) {
      pool.async([&, i] {
        llvm::LLVMContext context;
        auto module = llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(llvm::StringRef(parts[i].data(), parts[i].size()),
                                  absl::StrCat("part", i)),
            context);
        if (!module) {
          results[i] = absl::InternalError(absl::StrCat(
              "cannot read part ", i, " of the module: ", ErrorText(module.takeError())));
          return;
        }
        llvm::orc::JITTargetMachineBuilder builder = target_builder;
        auto target_machine = builder.createTargetMachine();
        if (!target_machine) {
          results[i] = absl::InternalError(absl::StrCat("cannot create the host target machine: ",
                                                        ErrorText(target_machine.takeError())));
          return;
        }
        results[i] = CompileToObject(**module, **target_machine, opt_level);
        module->reset();  // before its context
      });
    }
    pool.wait();
  }
  std::vector<CompiledObject> objects;
  for (absl::StatusOr<CompiledObject>& result : results) {
    if (!result.ok()) return result.status();
    objects.push_back(*std::move(result));
  }
  return objects;
}

#if LLVM_VERSION_MAJOR >= 17
llvm::orc::ExecutorSymbolDef AbsoluteSymbol(void* address) {
  return {llvm::orc::ExecutorAddr::fromPtr(address),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
}
template <typename Symbol>
void* SymbolAddress(const Symbol& symbol) {
  return symbol.getAddress().template toPtr<void*>();
}
#else
llvm::JITEvaluatedSymbol AbsoluteSymbol(void* address) {
  return llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(address),
                                  llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
}
template <typename Symbol>
void* SymbolAddress(const Symbol& symbol) {
  return llvm::jitTargetAddressToPointer<void*>(symbol.getAddress());
}
#endif

}  // namespace

CpuJit::CpuJit() = default;

CpuJit::~CpuJit() {
  if (session_ != nullptr) {
    // Ending the session frees every linked object (and deregisters its EH
    // frames) through the object layer, which must still be alive then.
    if (llvm::Error error = session_->endSession()) llvm::consumeError(std::move(error));
  }
  object_layer_.reset();
  session_.reset();
}

void CpuJit::RecordSessionError(std::string message) {
  std::lock_guard<std::mutex> lock(session_errors_mutex_);
  if (!session_errors_.empty()) session_errors_ += "; ";
  session_errors_ += message;
}

std::string CpuJit::TakeSessionErrors() {
  std::lock_guard<std::mutex> lock(session_errors_mutex_);
  return std::exchange(session_errors_, std::string());
}

absl::StatusOr<std::unique_ptr<CpuJit>> CpuJit::Compile(std::unique_ptr<llvm::LLVMContext> context,
                                                        std::unique_ptr<llvm::Module> module,
                                                        const JitOptions& options) {
  // The module must die before its context on every return path. The
  // parameters themselves are destroyed by the caller in an order the ABI
  // leaves open, so both move into this local at once; members are destroyed
  // in reverse order, module first.
  struct OwnedModule {
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;
  } owned{std::move(context), std::move(module)};
  if (owned.context == nullptr || owned.module == nullptr) {
    return absl::InvalidArgumentError("CpuJit::Compile needs a context and a module");
  }
  if (&owned.module->getContext() != owned.context.get()) {
    return absl::InvalidArgumentError(
        "CpuJit::Compile: the module was not created in the given context");
  }
  return CompileOwned(std::move(owned.module), options);
}

absl::StatusOr<std::unique_ptr<CpuJit>> CpuJit::CompileOwned(std::unique_ptr<llvm::Module> module,
                                                             const JitOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("CpuJit::Compile: opt_level must be 0..3, got ", options.opt_level));
  }
  InitializeNativeTargetOnce();

  std::string verifier_message;
  llvm::raw_string_ostream verifier_stream(verifier_message);
  if (llvm::verifyModule(*module, &verifier_stream)) {
    verifier_stream.flush();
    return absl::InvalidArgumentError(absl::StrCat("LLVM module '", module->getName().str(),
                                                   "' fails verification: ", verifier_message));
  }
  InlineMathApproximations(*module);

  // The host's CPU and features; position-independent code so references to
  // process symbols far from the reservation go through the GOT.
  auto target_builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!target_builder) {
    return absl::InternalError(
        absl::StrCat("cannot describe the host target: ", ErrorText(target_builder.takeError())));
  }
  target_builder->setCodeGenOptLevel(CodeGenLevel(options.opt_level));
  target_builder->setRelocationModel(llvm::Reloc::PIC_);
  target_builder->setCodeModel(llvm::CodeModel::Small);
  auto target_machine = target_builder->createTargetMachine();
  if (!target_machine) {
    return absl::InternalError(absl::StrCat("cannot create the host target machine: ",
                                            ErrorText(target_machine.takeError())));
  }
  const llvm::DataLayout data_layout = (*target_machine)->createDataLayout();
  module->setDataLayout(data_layout);
  module->setTargetTriple((*target_machine)->getTargetTriple().str());

  int64_t function_definitions = 0;
  for (const llvm::Function& function : *module)
    function_definitions += function.isDeclaration() ? 0 : 1;
  const int64_t parts = std::min<int64_t>(std::max<int64_t>(options.compile_threads, 1),
                                          function_definitions / kMinFunctionsPerPart);
  std::vector<CompiledObject> objects;
  if (parts > 1) {
    const std::vector<llvm::SmallVector<char, 0>> bitcode = SplitIntoBitcodeParts(*module, parts);
    module.reset();
    HMO_ASSIGN_OR_RETURN(objects, CompileParts(bitcode, *target_builder, options.opt_level, parts));
  } else {
    HMO_ASSIGN_OR_RETURN(CompiledObject object,
                         CompileToObject(*module, **target_machine, options.opt_level));
    objects.push_back(std::move(object));
  }
  // The object files are all that is needed from here on.
  module.reset();
  size_t got_bytes = 0;
  std::vector<std::string> definitions;
  for (const CompiledObject& object : objects) {
    got_bytes = std::max(got_bytes, object.got_bytes);
    definitions.insert(definitions.end(), object.definitions.begin(), object.definitions.end());
  }

  auto process_control = llvm::orc::SelfExecutorProcessControl::Create();
  if (!process_control) {
    return absl::InternalError(absl::StrCat("cannot create the ORC process control: ",
                                            ErrorText(process_control.takeError())));
  }
  std::unique_ptr<CpuJit> jit(new CpuJit());
  CpuJit* raw = jit.get();
  jit->session_ = std::make_unique<llvm::orc::ExecutionSession>(std::move(*process_control));
  jit->session_->setErrorReporter(
      [raw](llvm::Error error) { raw->RecordSessionError(ErrorText(std::move(error))); });
  jit->global_prefix_ = data_layout.getGlobalPrefix();
  jit->dylib_ = &jit->session_->createBareJITDylib("hmo_cpu_module");
  jit->object_layer_ = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
      *jit->session_,
#if LLVM_VERSION_MAJOR >= 17
      [raw, got_bytes](const llvm::MemoryBuffer&) {
#else
      [raw, got_bytes]() {
#endif
        // One reservation per object; every object's GOT fits the largest
        // bound.
        auto memory_manager = std::make_unique<ContiguousSectionMemoryManager>(got_bytes);
        std::lock_guard<std::mutex> lock(raw->memory_managers_mutex_);
        raw->memory_managers_.push_back(memory_manager.get());
        return memory_manager;
      });

  if (!options.symbols.empty()) {
    llvm::orc::SymbolMap absolute;
    for (const auto& [name, address] : options.symbols) {
      absolute[jit->Intern(name)] = AbsoluteSymbol(address);
    }
    if (llvm::Error error = jit->dylib_->define(llvm::orc::absoluteSymbols(std::move(absolute)))) {
      return absl::InternalError(
          absl::StrCat("cannot define the runtime symbols: ", ErrorText(std::move(error))));
    }
  }
  auto process_symbols =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit->global_prefix_);
  if (!process_symbols) {
    return absl::InternalError(absl::StrCat("cannot search the process's symbols: ",
                                            ErrorText(process_symbols.takeError())));
  }
  jit->dylib_->addGenerator(std::move(*process_symbols));

  std::map<std::string, uint64_t> function_sizes;
  for (CompiledObject& object : objects) {
    if (std::getenv("HMO_PERF_MAP") != nullptr) function_sizes.merge(FunctionSizes(*object.object));
    if (llvm::Error error = jit->object_layer_->add(*jit->dylib_, std::move(object.object))) {
      return absl::InternalError(
          absl::StrCat("cannot add the object file: ", ErrorText(std::move(error))));
    }
  }

  // Link now, so that link errors belong to Compile and the sizes are final.
  if (!definitions.empty()) {
    llvm::orc::SymbolLookupSet lookup_set;
    for (const std::string& name : definitions) lookup_set.add(jit->Intern(name));
    auto linked =
        jit->session_->lookup(llvm::orc::makeJITDylibSearchOrder(
                                  jit->dylib_, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
                              lookup_set);
    if (!linked) {
      std::string message = ErrorText(linked.takeError());
      const std::string causes = jit->TakeSessionErrors();
      if (!causes.empty()) absl::StrAppend(&message, ": ", causes);
      return absl::InternalError(absl::StrCat("linking the module failed: ", message));
    }
  }

  AppendPerfMap(function_sizes, *jit);
  std::lock_guard<std::mutex> lock(jit->memory_managers_mutex_);
  for (const ContiguousSectionMemoryManager* memory : jit->memory_managers_) {
    jit->section_sizes_.code_bytes += static_cast<int64_t>(memory->code().used_bytes);
    jit->section_sizes_.rodata_bytes += static_cast<int64_t>(memory->rodata().used_bytes);
    jit->section_sizes_.rwdata_bytes += static_cast<int64_t>(memory->rwdata().used_bytes);
    jit->section_sizes_.reserved_bytes += static_cast<int64_t>(memory->reserved_bytes());
  }
  jit->section_sizes_.parts = static_cast<int64_t>(objects.size());
  if (!jit->memory_managers_.empty()) {
    const ContiguousSectionMemoryManager* memory = jit->memory_managers_.front();
    jit->reservation_begin_ = memory->reservation_begin();
    jit->reservation_end_ = memory->reservation_end();
    jit->code_begin_ = memory->code().begin;
    jit->rodata_begin_ = memory->rodata().begin;
    jit->rwdata_begin_ = memory->rwdata().begin;
  }
  return jit;
}

llvm::orc::SymbolStringPtr CpuJit::Intern(std::string_view name) {
  std::string mangled;
  if (global_prefix_ != '\0') mangled.push_back(global_prefix_);
  mangled.append(name);
  return session_->intern(mangled);
}

absl::StatusOr<void*> CpuJit::Lookup(std::string_view symbol) {
  auto found = session_->lookup(
      llvm::orc::makeJITDylibSearchOrder(dylib_, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      Intern(symbol));
  if (found) return SymbolAddress(*found);
  llvm::Error error = found.takeError();
  if (error.isA<llvm::orc::SymbolsNotFound>()) {
    llvm::consumeError(std::move(error));
    return absl::NotFoundError(absl::StrCat("symbol '", std::string(symbol),
                                            "' is not defined by the JIT-compiled module, its "
                                            "runtime symbols or the process"));
  }
  std::string message = ErrorText(std::move(error));
  const std::string causes = TakeSessionErrors();
  if (!causes.empty()) absl::StrAppend(&message, ": ", causes);
  return absl::InternalError(
      absl::StrCat("looking up '", std::string(symbol), "' failed: ", message));
}

}  // namespace hmo::codegen
