#include <cstdio>
#include <fstream>
#include <sstream>
#include "gtest/gtest.h"
#include "run_hlo.h"
#include "hmo/execution/random_literals.h"
#include <chrono>
namespace hmo::cpu::testing {
TEST(Debug, Dump) {
  const char* path = getenv("HLO");
  if (!path) GTEST_SKIP();
  std::ifstream f(path); std::stringstream ss; ss << f.rdbuf();
  auto module = ParseHloModule(ss.str());
  ASSERT_TRUE(module.ok()) << module.status();
  FillElidedConstants(**module, 7);
  auto t0 = std::chrono::steady_clock::now();
  CpuCompileOptions o; o.dump_ir_to = "/tmp/cg/out.ll";
  auto exe = CompileForCpu(**module, o);
  ASSERT_TRUE(exe.ok()) << exe.status();
  printf("compile %.2fs kernels %ld\n", std::chrono::duration<double>(std::chrono::steady_clock::now()-t0).count(), (long)(*exe)->stats().kernel_count);
  auto args = MakeRandomArguments(**module, 7);
  t0 = std::chrono::steady_clock::now();
  auto r = (*exe)->Execute(args, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  printf("run %.3fs\n", std::chrono::duration<double>(std::chrono::steady_clock::now()-t0).count());
}
}
