// CPU backend benchmarks, each a ratio against a baseline timed in the same
// run (machines are noisy; absolute times are printed only for reference):
//   elementwise  a kLoop fusion out = a * b + c over f32[N], against memcpy of
//                the same number of bytes (goal: >= 0.8 of memcpy bandwidth)
//   dot          dot f32[n,n] x f32[n,n], against cblas_sgemm called directly
//                (goal: >= 0.9)
//   dot bf16     dot bf16[n,n] x bf16[n,n] -> f32 (oneDNN), against the f32
//                dot of the same size, both on the intra-op threads
//                (goal: >= 1.0)
//   conv bf16    a 3x3 bf16 convolution (bf16 patches, oneDNN's GEMM)
//                against the f32 one of the same size (goal: >= 1.0)
//   output fusion  dot f32[n,n] with a bias-add + relu epilogue as one
//                output fusion, against the dot into its own buffer and a
//                loop fusion after it (goal: >= 1.0)
//   transpose    a layout-changing copy f32[n,n]{1,0} -> {0,1} (a tiled
//                loop: transposed_reads.h), against memcpy of the same bytes
//                (goal: >= 0.5 of memcpy bandwidth)
//   f16 loop     a chain of f16 multiplies and adds over f16[N] (each step
//                rounded to f16), against the same chain in f32 (no goal:
//                how much the rounding costs)
//   siblings     a sum and a sum of squares of one f32[n,n] input along its
//                rows as one multi-output reduction fusion, against the two
//                reductions as kernels of their own (goal: >= 1.0)
//   --modules F  (only this, on the module files given) each module with
//                independent kernels run at the same time against every
//                kernel called in schedule order (goal: >= 1.0)
//   compile      CompileForCpu time per 1k instructions of a chain of
//                unfused elementwise instructions (1k, 2k, 4k)
// Times are medians of alternating runs of the measured code and its
// baseline on pre-faulted buffers: the
// generated entry function is called on a buffer table of our own, so the
// figures are the kernels' and not the arena mapping's.

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#include "cpu/codegen/module_emitter.h"
#include "cpu/compiler/cpu_compiler.h"
#include "fmt/format.h"
#include "hmo/execution/random_literals.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::cpu {
namespace {

double Seconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double Median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Median times of `measured` and `baseline`, run alternately so that load
// changes on a shared machine hit both alike.
std::pair<double, double> PairedMedianSeconds(int repetitions, const std::function<void()>& measured,
                                              const std::function<void()>& baseline) {
  measured();  // warm up
  baseline();
  std::vector<double> a, b;
  for (int i = 0; i < repetitions; ++i) {
    a.push_back(Seconds(measured));
    b.push_back(Seconds(baseline));
  }
  return {Median(a), Median(b)};
}

// Arenas and a buffer table for `executable`, every page touched once.
struct OwnBuffers {
  std::map<int64_t, std::vector<char>> arenas;
  std::vector<char*> table;
  LoopTripBudget budget;

  explicit OwnBuffers(const CpuExecutable& executable) {
    for (const auto& [color, bytes] : executable.stats().arena_bytes) {
      arenas[color].assign(bytes + kCpuBufferAlignment, 1);
    }
    for (const CpuExecutable::Placement& placement : executable.placements()) {
      char* address = nullptr;
      if (placement.offset >= 0) {
        char* base = arenas[placement.arena].data();
        base += (kCpuBufferAlignment - reinterpret_cast<uintptr_t>(base) % kCpuBufferAlignment) %
                kCpuBufferAlignment;
        address = base + placement.offset;
      }
      table.push_back(address);
    }
    table.push_back(reinterpret_cast<char*>(&budget));
  }
  void Run(const CpuExecutable& executable) { executable.entry()(table.data()); }
};

std::unique_ptr<CpuExecutable> CompileOrDie(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) {
    fmt::print(stderr, "parse: {}\n", module.status().ToString());
    std::exit(1);
  }
  static std::vector<std::unique_ptr<HloModule>> keep_alive;
  keep_alive.push_back(std::move(*module));
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*keep_alive.back(), CpuCompileOptions{});
  if (!executable.ok()) {
    fmt::print(stderr, "compile: {}\n", executable.status().ToString());
    std::exit(1);
  }
  return std::move(*executable);
}

void ElementwiseVsMemcpy(int64_t n) {
  const std::string text = fmt::format(R"(HloModule elementwise
fused {{
  a = f32[{0}]{{0}} parameter(0)
  b = f32[{0}]{{0}} parameter(1)
  c = f32[{0}]{{0}} parameter(2)
  m = f32[{0}]{{0}} multiply(a, b)
  ROOT r = f32[{0}]{{0}} add(m, c)
}}
ENTRY e {{
  a = f32[{0}]{{0}} parameter(0)
  b = f32[{0}]{{0}} parameter(1)
  c = f32[{0}]{{0}} parameter(2)
  ROOT f = f32[{0}]{{0}} fusion(a, b, c), kind=kLoop, calls=fused
}}
)",
                                       n);
  std::unique_ptr<CpuExecutable> executable = CompileOrDie(text);
  OwnBuffers buffers(*executable);
  // The fusion moves 4n floats (3 reads, 1 write); memcpy of 2n floats moves
  // the same bytes (2n read, 2n written).
  std::vector<float> source(2 * n, 1.0f), destination(2 * n, 0.0f);
  const auto [fusion, copy] = PairedMedianSeconds(
      21, [&] { buffers.Run(*executable); },
      [&] { std::memcpy(destination.data(), source.data(), source.size() * sizeof(float)); });
  const double bytes = 16.0 * static_cast<double>(n);
  fmt::print("elementwise n={:>9}: fusion {:7.2f} GB/s, memcpy {:7.2f} GB/s, ratio {:.2f} (goal >= 0.80)\n",
             n, bytes / fusion * 1e-9, bytes / copy * 1e-9, copy / fusion);
}

void TransposeVsMemcpy(int64_t n) {
  const std::string text = fmt::format(R"(HloModule transpose
ENTRY e {{
  a = f32[{0},{0}]{{1,0}} parameter(0)
  ROOT c = f32[{0},{0}]{{0,1}} copy(a)
}}
)",
                                       n);
  std::unique_ptr<CpuExecutable> executable = CompileOrDie(text);
  OwnBuffers buffers(*executable);
  std::vector<float> source(n * n, 1.0f), destination(n * n, 0.0f);
  const auto [transpose, copy] = PairedMedianSeconds(
      21, [&] { buffers.Run(*executable); },
      [&] { std::memcpy(destination.data(), source.data(), source.size() * sizeof(float)); });
  const double bytes = 8.0 * static_cast<double>(n * n);
  fmt::print(
      "transpose n={:>5}: copy {:7.2f} GB/s, memcpy {:7.2f} GB/s, ratio {:.2f} (goal >= 0.50)\n", n,
      bytes / transpose * 1e-9, bytes / copy * 1e-9, copy / transpose);
}

void HalfLoopVsF32Loop(int64_t n) {
  const std::string chain = R"(HloModule chain
fused {{
  a = {1}[{0}]{{0}} parameter(0)
  b = {1}[{0}]{{0}} parameter(1)
  m1 = {1}[{0}]{{0}} multiply(a, b)
  s1 = {1}[{0}]{{0}} add(m1, a)
  m2 = {1}[{0}]{{0}} multiply(s1, s1)
  s2 = {1}[{0}]{{0}} subtract(m2, b)
  m3 = {1}[{0}]{{0}} multiply(s2, m1)
  ROOT s3 = {1}[{0}]{{0}} add(m3, s1)
}}
ENTRY e {{
  a = {1}[{0}]{{0}} parameter(0)
  b = {1}[{0}]{{0}} parameter(1)
  ROOT f = {1}[{0}]{{0}} fusion(a, b), kind=kLoop, calls=fused
}}
)";
  std::unique_ptr<CpuExecutable> half = CompileOrDie(fmt::format(fmt::runtime(chain), n, "f16"));
  std::unique_ptr<CpuExecutable> single = CompileOrDie(fmt::format(fmt::runtime(chain), n, "f32"));
  OwnBuffers half_buffers(*half), single_buffers(*single);
  const auto [half_seconds, single_seconds] = PairedMedianSeconds(
      21, [&] { half_buffers.Run(*half); }, [&] { single_buffers.Run(*single); });
  fmt::print("f16 loop n={:>9}: f16 {:.3f} ms, f32 {:.3f} ms, ratio {:.2f} (no goal)\n", n,
             half_seconds * 1e3, single_seconds * 1e3, single_seconds / half_seconds);
}

void DotVsBlas(int64_t n) {
  const std::string text = fmt::format(R"(HloModule dot
ENTRY e {{
  a = f32[{0},{0}]{{1,0}} parameter(0)
  b = f32[{0},{0}]{{1,0}} parameter(1)
  ROOT d = f32[{0},{0}]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
)",
                                       n);
  std::unique_ptr<CpuExecutable> executable = CompileOrDie(text);
  OwnBuffers buffers(*executable);
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.0f);
  const auto [generated, blas] = PairedMedianSeconds(
      15, [&] { buffers.Run(*executable); },
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n,
                    b.data(), n, 0.0f, c.data(), n);
      });
  const double flops = 2.0 * n * n * n;
  fmt::print("dot n={:>5}: hmo {:7.2f} GFLOP/s, cblas_sgemm {:7.2f} GFLOP/s, ratio {:.2f} (goal >= 0.90)\n",
             n, flops / generated * 1e-9, flops / blas * 1e-9, blas / generated);
}

// The module `text` (a format string whose {0} is the element type) in
// `narrow` (bf16, f16) against the same module in f32, both on the intra-op
// threads: the narrow path must not be much slower than widening to f32 was
// (`goal`: f32 time over narrow time).
void NarrowVsF32(const std::string& name, const char* narrow, const std::string& text, double flops,
                 double goal) {
  std::unique_ptr<CpuExecutable> narrow_executable =
      CompileOrDie(fmt::format(fmt::runtime(text), narrow));
  std::unique_ptr<CpuExecutable> f32 = CompileOrDie(fmt::format(fmt::runtime(text), "f32"));
  OwnBuffers narrow_buffers(*narrow_executable), f32_buffers(*f32);
  const auto [narrow_seconds, f32_seconds] = PairedMedianSeconds(
      15, [&] { narrow_buffers.Run(*narrow_executable); }, [&] { f32_buffers.Run(*f32); });
  fmt::print("{}: hmo {} {:7.2f} GFLOP/s, hmo f32 {:7.2f} GFLOP/s, ratio {:.2f} (goal >= {:.2f})\n",
             name, narrow, flops / narrow_seconds * 1e-9, flops / f32_seconds * 1e-9,
             f32_seconds / narrow_seconds, goal);
}

// A bf16 dot into f32 (the runtime's oneDNN bf16 GEMM), and an f16 one (the
// BLAS on widened blocks), against the f32 dot.
void NarrowDotVsF32Dot(const char* narrow, int64_t n, double goal) {
  NarrowVsF32(fmt::format("dot {} n={:>5}", narrow, n), narrow,
              fmt::format(R"(HloModule dot
ENTRY e {{{{
  a = {{0}}[{0},{0}]{{{{1,0}}}} parameter(0)
  b = {{0}}[{0},{0}]{{{{1,0}}}} parameter(1)
  ROOT d = f32[{0},{0}]{{{{1,0}}}} dot(a, b), lhs_contracting_dims={{{{1}}}}, rhs_contracting_dims={{{{0}}}}
}}}}
)",
                          n),
              2.0 * n * n * n, goal);
}

// A 3x3 same-padded convolution of a batch of n x n images with `features`
// input and output features, bf16 (f16) in and out (16-bit patches, oneDNN's
// GEMM or the BLAS on widened blocks, f32 sums rounded once) against f32.
void NarrowConvVsF32Conv(const char* narrow, int64_t n, int64_t features, double goal) {
  constexpr int64_t kBatch = 8;
  NarrowVsF32(fmt::format("conv {} 8x{}x{}x{} 3x3", narrow, n, n, features), narrow,
              fmt::format(R"(HloModule conv
ENTRY e {{{{
  x = {{0}}[{2},{0},{0},{1}]{{{{3,2,1,0}}}} parameter(0)
  w = {{0}}[3,3,{1},{1}]{{{{3,2,1,0}}}} parameter(1)
  ROOT c = {{0}}[{2},{0},{0},{1}]{{{{3,2,1,0}}}} convolution(x, w), window={{{{size=3x3 pad=1_1x1_1}}}}, dim_labels=b01f_01io->b01f
}}}}
)",
                          n, features, kBatch),
              2.0 * kBatch * n * n * features * features * 9, goal);
}

// Times `fused_text` against `separate_text` (the same computation with the
// product in a buffer of its own), alternately, and prints both with their
// arenas.
void FusedVsSeparate(const std::string& fused_label, const std::string& fused_text,
                     const std::string& separate_label, const std::string& separate_text) {
  std::unique_ptr<CpuExecutable> fused = CompileOrDie(fused_text);
  std::unique_ptr<CpuExecutable> separate = CompileOrDie(separate_text);
  OwnBuffers fused_buffers(*fused), separate_buffers(*separate);
  const auto [fused_seconds, separate_seconds] = PairedMedianSeconds(
      15, [&] { fused_buffers.Run(*fused); }, [&] { separate_buffers.Run(*separate); });
  const auto arena = [](const CpuExecutable& executable) {
    int64_t bytes = 0;
    for (const auto& [color, size] : executable.stats().arena_bytes) bytes += size;
    return bytes;
  };
  fmt::print("{} {:.3f} ms, {} {:.3f} ms, ratio {:.2f} (goal >= 1.00); arenas {} B vs {} B\n",
             fused_label, fused_seconds * 1e3, separate_label, separate_seconds * 1e3,
             separate_seconds / fused_seconds, arena(*fused), arena(*separate));
}

// A row sum and a row sum of squares of one input as one multi-output
// reduction fusion against the two reductions run as kernels of their own.
void SiblingReductionsVsSeparate(int64_t n) {
  const std::string computations = R"(HloModule siblings
sum {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
fused_sum {{
  x = f32[{0},{0}]{{1,0}} parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[{0}]{{0}} reduce(x, zero), dimensions={{1}}, to_apply=sum
}}
fused_squares {{
  x = f32[{0},{0}]{{1,0}} parameter(0)
  sq = f32[{0},{0}]{{1,0}} multiply(x, x)
  zero = f32[] constant(0)
  ROOT s = f32[{0}]{{0}} reduce(sq, zero), dimensions={{1}}, to_apply=sum
}}
fused_both {{
  x = f32[{0},{0}]{{1,0}} parameter(0)
  zero = f32[] constant(0)
  s = f32[{0}]{{0}} reduce(x, zero), dimensions={{1}}, to_apply=sum
  sq = f32[{0},{0}]{{1,0}} multiply(x, x)
  s2 = f32[{0}]{{0}} reduce(sq, zero), dimensions={{1}}, to_apply=sum
  ROOT t = (f32[{0}]{{0}}, f32[{0}]{{0}}) tuple(s, s2)
}}
)";
  const std::string fused = computations + R"(ENTRY e {{
  x = f32[{0},{0}]{{1,0}} parameter(0)
  ROOT f = (f32[{0}]{{0}}, f32[{0}]{{0}}) fusion(x), kind=kInput, calls=fused_both
}}
)";
  const std::string separate = computations + R"(ENTRY e {{
  x = f32[{0},{0}]{{1,0}} parameter(0)
  s = f32[{0}]{{0}} fusion(x), kind=kInput, calls=fused_sum
  s2 = f32[{0}]{{0}} fusion(x), kind=kInput, calls=fused_squares
  ROOT t = (f32[{0}]{{0}}, f32[{0}]{{0}}) tuple(s, s2)
}}
)";
  FusedVsSeparate(fmt::format("siblings n={:>5}: one multi-output reduction", n),
                  fmt::format(fmt::runtime(fused), n), "two reductions",
                  fmt::format(fmt::runtime(separate), n));
}

// A dot with a bias-add and relu epilogue as one output fusion (the
// epilogue applied to each product tile of the library) against the same
// dot into a buffer of its own and then a loop fusion over it.
void OutputFusionVsDotThenLoop(int64_t n) {
  const std::string epilogue = R"(
  z = f32[] constant(0)
  zb = f32[{0},{0}]{{1,0}} broadcast(z), dimensions={{}}
  bb = f32[{0},{0}]{{1,0}} broadcast(bias), dimensions={{1}}
  s = f32[{0},{0}]{{1,0}} add(d, bb)
  ROOT r = f32[{0},{0}]{{1,0}} maximum(s, zb)
}})";
  const std::string output_fusion = fmt::format(fmt::runtime(R"(HloModule output_fusion
fused {{
  a = f32[{0},{0}]{{1,0}} parameter(0)
  b = f32[{0},{0}]{{1,0}} parameter(1)
  bias = f32[{0}]{{0}} parameter(2)
  d = f32[{0},{0}]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}})" +
                                                             epilogue + R"(
ENTRY e {{
  a = f32[{0},{0}]{{1,0}} parameter(0)
  b = f32[{0},{0}]{{1,0}} parameter(1)
  bias = f32[{0}]{{0}} parameter(2)
  ROOT f = f32[{0},{0}]{{1,0}} fusion(a, b, bias), kind=kOutput, calls=fused
}}
)"),
                                                n);
  const std::string dot_then_loop = fmt::format(fmt::runtime(R"(HloModule dot_then_loop
fused {{
  d = f32[{0},{0}]{{1,0}} parameter(0)
  bias = f32[{0}]{{0}} parameter(1))" + epilogue + R"(
ENTRY e {{
  a = f32[{0},{0}]{{1,0}} parameter(0)
  b = f32[{0},{0}]{{1,0}} parameter(1)
  bias = f32[{0}]{{0}} parameter(2)
  d = f32[{0},{0}]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  ROOT f = f32[{0},{0}]{{1,0}} fusion(d, bias), kind=kLoop, calls=fused
}}
)"),
                                                n);
  FusedVsSeparate(fmt::format("output fusion n={:>5}: dot+epilogue", n), output_fusion,
                  "dot then loop", dot_then_loop);
}

// A 3x3 same-padded convolution of 8 n x n images, 64 features in and out,
// with a bias-add and relu epilogue as one output fusion against the
// convolution into a buffer of its own and a loop fusion after it.
void ConvOutputFusionVsConvThenLoop(const std::string& type, int64_t n) {
  const std::string shape = fmt::format("{}[8,{},{},64]{{3,2,1,0}}", type, n, n);
  const std::string epilogue = fmt::format(R"(
  z = {0}[] constant(0)
  zb = {1} broadcast(z), dimensions={{}}
  bb = {1} broadcast(bias), dimensions={{3}}
  s = {1} add(c, bb)
  ROOT r = {1} maximum(s, zb)
}})",
                                           type, shape);
  const std::string operands = fmt::format(R"(
  x = {1} parameter(0)
  w = {0}[3,3,64,64]{{3,2,1,0}} parameter(1)
  bias = {0}[64]{{0}} parameter(2))",
                                           type, shape);
  const std::string convolution = fmt::format(
      "\n  c = {} convolution(x, w), window={{size=3x3 pad=1_1x1_1}}, "
      "dim_labels=b01f_01io->b01f",
      shape);
  const std::string fused = "HloModule conv_output_fusion\nfused {" + operands + convolution +
                            epilogue + "\nENTRY e {" + operands + "\n  ROOT f = " + shape +
                            " fusion(x, w, bias), kind=kOutput, calls=fused\n}\n";
  const std::string separate =
      "HloModule conv_then_loop\nfused {\n  c = " + shape + " parameter(0)\n  bias = " + type +
      "[64]{0} parameter(1)" + epilogue + "\nENTRY e {" + operands + convolution +
      "\n  ROOT f = " + shape + " fusion(c, bias), kind=kLoop, calls=fused\n}\n";
  FusedVsSeparate(fmt::format("conv output fusion {} 8x{}x{}x64 3x3: conv+epilogue", type, n, n),
                  fused, "conv then loop", separate);
}

// A module (a file: an optimized module, e.g. `hmo run ... -o`) with
// independent kernels run as dependency graphs, against the same module
// with every kernel called in schedule order; arguments from seed 0.
void ConcurrentVsInOrder(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text.str());
  if (!module.ok()) {
    fmt::print(stderr, "{}: {}\n", path, module.status().ToString());
    std::exit(1);
  }
  CpuCompileOptions in_order_options;
  in_order_options.concurrent_kernels = false;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> concurrent =
      CompileForCpu(**module, CpuCompileOptions{});
  absl::StatusOr<std::unique_ptr<CpuExecutable>> in_order =
      CompileForCpu(**module, in_order_options);
  if (!concurrent.ok() || !in_order.ok()) {
    fmt::print(stderr, "{}: compile failed\n", path);
    std::exit(1);
  }
  // Each run is timed by the executable (its code alone, arguments copied
  // in before), alternating the two.
  const std::vector<Literal> arguments = MakeRandomArguments(**module, 0);
  const auto run_seconds = [&](CpuExecutable& executable) {
    ExecutionProfile profile;
    if (!executable.Execute(arguments, &profile).ok()) {
      fmt::print(stderr, "{}: run failed\n", path);
      std::exit(1);
    }
    return profile.run_seconds;
  };
  run_seconds(**concurrent);
  run_seconds(**in_order);
  std::vector<double> concurrent_times, in_order_times;
  for (int i = 0; i < 9; ++i) {
    concurrent_times.push_back(run_seconds(**concurrent));
    in_order_times.push_back(run_seconds(**in_order));
  }
  const double concurrent_seconds = Median(concurrent_times);
  const double in_order_seconds = Median(in_order_times);
  fmt::print("concurrent kernels {}: {:.3f} ms, in order {:.3f} ms, ratio {:.2f} (goal >= 1.00)\n",
             std::filesystem::path(path).filename().string(), concurrent_seconds * 1e3,
             in_order_seconds * 1e3, in_order_seconds / concurrent_seconds);
}

void CompileTime(int64_t instructions) {
  std::string text = "HloModule chain\nENTRY e {\n  v0 = f32[64]{0} parameter(0)\n";
  for (int64_t i = 1; i <= instructions; ++i) {
    const char* op = i % 3 == 0 ? "multiply" : (i % 3 == 1 ? "add" : "subtract");
    text += fmt::format("  {}v{} = f32[64]{{0}} {}(v{}, v0)\n",
                        i == instructions ? "ROOT " : "", i, op, i - 1);
  }
  text += "}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) std::exit(1);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(**module, CpuCompileOptions{});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!executable.ok()) {
    fmt::print(stderr, "compile: {}\n", executable.status().ToString());
    std::exit(1);
  }
  fmt::print("compile {:>5} instructions: {:.3f} s, {:.3f} s per 1k instructions, code {} B\n",
             instructions, seconds, seconds * 1000.0 / instructions,
             (*executable)->stats().code_bytes);
}

}  // namespace
}  // namespace hmo::cpu

int main(int argc, char** argv) {
  // --modules FILE...: only the concurrent-kernels comparison, on these.
  if (argc > 1 && std::string(argv[1]) == "--modules") {
    for (int i = 2; i < argc; ++i) hmo::cpu::ConcurrentVsInOrder(argv[i]);
    return 0;
  }
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  for (int64_t n : quick ? std::vector<int64_t>{1 << 20} : std::vector<int64_t>{1 << 20, 1 << 24}) {
    hmo::cpu::ElementwiseVsMemcpy(n);
  }
  for (int64_t n : quick ? std::vector<int64_t>{1024} : std::vector<int64_t>{1024, 4096}) {
    hmo::cpu::TransposeVsMemcpy(n);
    hmo::cpu::SiblingReductionsVsSeparate(n);
  }
  hmo::cpu::HalfLoopVsF32Loop(quick ? 1 << 20 : 1 << 24);
  for (int64_t n : quick ? std::vector<int64_t>{256} : std::vector<int64_t>{256, 1024}) {
    hmo::cpu::DotVsBlas(n);
    hmo::cpu::NarrowDotVsF32Dot("bf16", n, 1.0);
    hmo::cpu::NarrowDotVsF32Dot("f16", n, 0.9);
  }
  hmo::cpu::NarrowConvVsF32Conv("bf16", quick ? 16 : 56, 64, 1.0);
  hmo::cpu::NarrowConvVsF32Conv("f16", quick ? 16 : 56, 64, 0.9);
  for (int64_t n : quick ? std::vector<int64_t>{256} : std::vector<int64_t>{256, 1024, 2048}) {
    hmo::cpu::OutputFusionVsDotThenLoop(n);
  }
  for (const char* type : {"f32", "bf16"}) {
    hmo::cpu::ConvOutputFusionVsConvThenLoop(type, quick ? 16 : 56);
  }
  for (int64_t count : quick ? std::vector<int64_t>{1000} : std::vector<int64_t>{1000, 2000, 4000}) {
    hmo::cpu::CompileTime(count);
  }
  return 0;
}
