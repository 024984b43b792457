#ifndef HMO_BACKENDS_CPU_CODEGEN_TESTS_RUN_HLO_H_
#define HMO_BACKENDS_CPU_CODEGEN_TESTS_RUN_HLO_H_

// Test helpers: compile an HLO text module with the CPU compiler, run it,
// and build/read literals.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cpu/compiler/cpu_compiler.h"
#include "hmo/ir/literal.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::cpu::testing {

// Compiles (CompileForCpu) and executes `module` on `arguments`.
inline absl::StatusOr<Literal> CompileAndRun(const HloModule& module,
                                             const std::vector<Literal>& arguments) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(module, CpuCompileOptions{});
  if (!executable.ok()) return executable.status();
  return (*executable)->Execute(arguments, /*profile=*/nullptr);
}

// Parses, compiles and executes `hlo_text` on `arguments`.
inline absl::StatusOr<Literal> RunHlo(std::string_view hlo_text, const std::vector<Literal>& arguments) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo_text);
  if (!module.ok()) return module.status();
  return CompileAndRun(**module, arguments);
}

inline Literal R1F(PrimitiveType type, const std::vector<double>& values) {
  return Literal::CreateR1FromDoubles(type, values);
}
inline Literal R1I(PrimitiveType type, const std::vector<int64_t>& values) {
  return Literal::CreateR1FromInts(type, values);
}
// A literal of `shape` (row-major) from doubles.
inline Literal FromDoubles(const Shape& shape, const std::vector<double>& values) {
  Literal literal(shape);
  for (size_t i = 0; i < values.size(); ++i) literal.SetFromDouble(static_cast<int64_t>(i), values[i]);
  return literal;
}
inline Literal FromInts(const Shape& shape, const std::vector<int64_t>& values) {
  Literal literal(shape);
  for (size_t i = 0; i < values.size(); ++i) literal.SetFromInt64(static_cast<int64_t>(i), values[i]);
  return literal;
}

inline std::vector<double> AsDoubles(const Literal& literal) {
  std::vector<double> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) out.push_back(literal.GetAsDouble(i));
  return out;
}
inline std::vector<int64_t> AsInts(const Literal& literal) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) out.push_back(literal.GetAsInt64(i));
  return out;
}

// One argument per entry parameter of `module`: a ramp of small exact
// values (multiples of 1/8 in [-1, 1.75]), shifted between parameters so
// that no two are alike.
inline std::vector<Literal> RampArguments(const HloModule& module) {
  std::vector<Literal> arguments;
  int64_t salt = 1;
  for (const HloInstruction* parameter : module.entry_computation()->parameter_instructions()) {
    Literal literal(parameter->shape());
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.SetFromDouble(i, static_cast<double>((i * 7 + salt) % 23) / 8.0 - 1.0);
    }
    arguments.push_back(std::move(literal));
    salt += 5;
  }
  return arguments;
}

}  // namespace hmo::cpu::testing

#endif  // HMO_BACKENDS_CPU_CODEGEN_TESTS_RUN_HLO_H_
