#include <cstdio>
#include <fstream>
#include <sstream>
#include "gtest/gtest.h"
#include "run_hlo.h"
namespace hmo::cpu::testing {
TEST(Debug, Dump) {
  const char* path = getenv("HLO");
  if (!path) GTEST_SKIP();
  std::ifstream f(path); std::stringstream ss; ss << f.rdbuf();
  auto module = ParseHloModule(ss.str());
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions o; o.dump_ir_to = "/tmp/cg/out.ll";
  auto exe = CompileForCpu(**module, o);
  ASSERT_TRUE(exe.ok()) << exe.status();
  printf("%s\n", (*exe)->assignment().ToString().c_str());
}
}
