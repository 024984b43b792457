// Memory statistics of the modules in tests/hlo (copies of ../shared/hlo).
//
// Every module is checked three ways:
//  * golden figures (argument, output, alias, temp with XLA's heap and with
//    hmo's best heap, host bytes, XLA's peak memory);
//  * an independent calculation from shapes and alias analysis alone, not
//    buffer assignment: argument = bytes of every entry parameter sub-buffer;
//    alias = bytes of every input/output-aliased parameter sub-buffer;
//    output = bytes of the distinct non-constant buffers in the entry result;
//  * invariants: temp >= the heap's lower bound, best temp <= XLA temp.
// The smallest modules were also worked out by hand (comments below).

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

struct Golden {
  const char* file;
  const char* module;
  int64_t argument;
  int64_t output;
  int64_t alias;
  int64_t temp_xla;
  int64_t temp_best;
  int64_t host;  // host argument + output + temp
  int64_t peak_memory;
};

// test_hlo.txt (by hand): lhs f32[32,24,64,128] 25,165,824 + rhs
//   f32[32,1024,64,128] 1,073,741,824 = 1,098,907,648; output
//   f32[32,24,1024,1] 3,145,728; no temp.
// tpu_s4_dus_fusion_memory_spaces.hlo (by hand): s4 E(4) arrays are half a
//   byte per element: parameters 33,554,432 + 4 (S(6)) + 2,097,152 + 1;
//   output copy.2 33,554,432; temp in S(1): copy/fusion.21 (one buffer, the
//   fusion updates copy in place through its nested fusion's aliasing)
//   33,554,432 + copy.1 2,097,152, live together.
// if_conditional.hlo (by hand): argument f32[] 4; output: the root tuple's
//   table 8 + its element 4; temp: tuple.5's table 8, the conditional's
//   table 8 (shared with the branch roots' tables) and compare.4's pred 1.
// dynamic_update_slice_inplace_bf16.hlo, module 3 (by hand): parameters
//   bf16[10,11,12] 2,640 + 2 x bf16[1,11,12] 264 + s32 4 = 3,172; the fusion
//   updates parameter 0 in place and is aliased to it: output = alias =
//   2,640; no temp.
const Golden kGoldens[] = {
    {"test_hlo.txt", "hlo_runner_test_0.1", 1098907648, 3145728, 0, 0, 0, 0, 1102053376},
    {"tpu_s4_dus_fusion_memory_spaces.hlo", "jit_insert.fusion.21.isolated", 35651589, 33554432, 0,
     35651584, 35651584, 0, 104857605},
    {"if_conditional.hlo", "tfcompile.0", 4, 12, 0, 17, 17, 0, 17},
    {"dynamic_update_slice_inplace_bf16.hlo", "MultipleInplaceDus", 5284, 4768, 4752, 0, 0, 0, 5300},
    {"dynamic_update_slice_inplace_bf16.hlo", "MultipleInplaceDusWithTransposeBitcastToTheRoot",
     5284, 4768, 4752, 0, 0, 0, 5300},
    {"dynamic_update_slice_inplace_bf16.hlo", "SingleInplaceDusWithTransposeBitcastToTheRoot",
     3172, 2640, 2640, 0, 0, 0, 3172},
    {"dynamic_update_slice_inplace_bf16.hlo", "SingleInplaceDusWithReshapeBitcastToTheRoot", 3172,
     2640, 2640, 0, 0, 0, 3172},
    {"dynamic_update_slice_inplace_bf16.hlo",
     "SingleInplaceDusWithBitcastToTheRootAndFromTheParameter", 3172, 2640, 2640, 0, 0, 0, 3172},
    {"graphsage_tf.hlo",
     "cluster_0__XlaCompiledKernel_true__XlaHasReferenceVars_false__XlaNumConstantArgs_2__"
     "XlaNumResourceArgs_0_.5",
     5164, 484, 0, 102824, 102824, 0, 108464},
    {"host_offload_jit_f_while_loops.hlo", "jit_f", 64, 64, 0, 2297, 2297, 0, 2241},
    {"ssd_mobilenet_tf.hlo",
     "cluster_0__XlaCompiledKernel_true__XlaHasReferenceVars_false__XlaNumConstantArgs_0__"
     "XlaNumResourceArgs_0_.1",
     1080000, 720808, 0, 20522618, 20522618, 0, 22323426},
    // hmo's tight packer reaches the lower bound where XLA's best fit is
    // 14.4% (attention) and 0.97% (llama) above it.
    {"hlo_llama3_8b_cp_bf16_1x4.hlo", "jit_train_step", 24093310988, 24093180304, 24093179916,
     32106420008, 31797090137, 0, 55890399689},
    {"attention_model.hlo", "cluster_861894508132706204_f15n_1__.8394", 53202520, 53202520,
     53201632, 2717286249, 2375282980, 0, 2428481812},
};

// Bytes of every sub-buffer (arrays and tuple tables) of the entry parameters.
int64_t ParameterBytes(const HloModule& module) {
  int64_t bytes = 0;
  for (const HloInstruction* parameter : module.entry_computation()->parameter_instructions()) {
    ShapeUtil::ForEachSubshape(parameter->shape(), [&](const Shape& shape, const ShapeIndex&) {
      bytes += ShapeUtil::ByteSizeOf(shape, 8);
    });
  }
  return bytes;
}

int64_t AliasedParameterBytes(const HloModule& module) {
  int64_t bytes = 0;
  module.input_output_alias_config().ForEachAlias(
      [&](const ShapeIndex&, const HloInputOutputAliasConfig::Alias& alias) {
        const HloInstruction* parameter =
            module.entry_computation()->parameter_instruction(alias.parameter_number);
        bytes += ShapeUtil::ByteSizeOf(
            ShapeUtil::GetSubshape(parameter->shape(), alias.parameter_index), 8);
      });
  return bytes;
}

// Bytes of the distinct buffers in the entry result: live-out buffers are
// live together at the end, so each needs its own allocation of its size.
// Constants get no allocation by default (XLA's allocate_buffers_for_constants
// is off), so a constant in the result (llama returns constant.608) counts 0.
int64_t OutputBytes(const HloModule& module) {
  auto alias = HloAliasAnalysis::Run(&module);
  EXPECT_TRUE(alias.ok());
  std::set<HloBuffer::Id> seen;
  int64_t bytes = 0;
  const HloInstruction* root = module.entry_computation()->root_instruction();
  ShapeUtil::ForEachSubshape(root->shape(), [&](const Shape&, const ShapeIndex& index) {
    for (const HloBuffer* buffer : (*alias)->ComputeBuffersAt(root, index)) {
      bool has_constant = false;
      for (const HloValue* value : buffer->values()) {
        has_constant |= value->instruction()->opcode() == HloOpcode::kConstant;
      }
      if (!has_constant && seen.insert(buffer->id()).second) {
        bytes += buffer->ComputeSize(
            [](const HloValue& value) { return ShapeUtil::ByteSizeOf(value.shape(), 8); });
      }
    }
  });
  return bytes;
}

class MemoryStatsGoldenTest : public ::testing::TestWithParam<Golden> {};

TEST_P(MemoryStatsGoldenTest, MatchesGoldenAndIndependentFigures) {
  const Golden& golden = GetParam();
  auto modules =
      ParseHloModulesFile(std::string(HMO_TEST_DATA_DIR) + "/hlo/" + golden.file);
  ASSERT_TRUE(modules.ok()) << modules.status();
  const HloModule* module = nullptr;
  for (const auto& candidate : *modules) {
    if (candidate->name() == golden.module) module = candidate.get();
  }
  ASSERT_NE(module, nullptr) << golden.module;

  MemoryReportOptions xla_options;
  xla_options.heap_algorithm = TempHeapAlgorithm::kXla;
  auto xla = BuildMemoryReport(*module, xla_options);
  ASSERT_TRUE(xla.ok()) << xla.status();
  MemoryReportOptions best_options;
  best_options.heap_algorithm = TempHeapAlgorithm::kBest;
  auto best = BuildMemoryReport(*module, best_options);
  ASSERT_TRUE(best.ok()) << best.status();

  const CompiledMemoryStats& s = xla->stats;
  EXPECT_EQ(s.argument_size_in_bytes, golden.argument);
  EXPECT_EQ(s.output_size_in_bytes, golden.output);
  EXPECT_EQ(s.alias_size_in_bytes, golden.alias);
  EXPECT_EQ(s.temp_size_in_bytes, golden.temp_xla);
  EXPECT_EQ(best->stats.temp_size_in_bytes, golden.temp_best);
  EXPECT_EQ(s.host_argument_size_in_bytes + s.host_output_size_in_bytes +
                s.host_temp_size_in_bytes,
            golden.host);
  EXPECT_EQ(s.peak_memory_in_bytes, golden.peak_memory);

  // Independent calculations.
  EXPECT_EQ(s.argument_size_in_bytes + s.host_argument_size_in_bytes, ParameterBytes(*module));
  EXPECT_EQ(s.alias_size_in_bytes + s.host_alias_size_in_bytes, AliasedParameterBytes(*module));
  EXPECT_EQ(s.output_size_in_bytes + s.host_output_size_in_bytes, OutputBytes(*module));
  // The same assignment apart from the temp heap.
  EXPECT_EQ(best->stats.argument_size_in_bytes, s.argument_size_in_bytes);
  EXPECT_EQ(best->stats.output_size_in_bytes, s.output_size_in_bytes);
  EXPECT_LE(best->stats.temp_size_in_bytes, s.temp_size_in_bytes);
  for (const TempHeapSummary& heap : best->temp_heaps) {
    EXPECT_GE(heap.heap_size, heap.lower_bound);
    EXPECT_LE(heap.heap_size, heap.xla_heap_size);
  }
  for (const TempHeapSummary& heap : xla->temp_heaps) {
    EXPECT_EQ(heap.heap_size, heap.xla_heap_size);
  }
}

INSTANTIATE_TEST_SUITE_P(TestHlo, MemoryStatsGoldenTest, ::testing::ValuesIn(kGoldens),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           std::string name = std::to_string(info.index) + "_" +
                                              std::string(info.param.file);
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace hmo
