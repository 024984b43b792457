// Specific facts of each corpus file, pinned so a parser regression shows up
// as a wrong number, a lost layout detail or a misread attribute.

#include <string>

#include "gtest/gtest.h"
#include "hlo_test_util.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using testing::ReadTestData;

// The corpus module tests/hlo/<file>.
std::unique_ptr<HloModule> Parse(const std::string& file) {
  return test_support::LoadTestModule("hlo/" + file);
}

int64_t CountOpcode(const HloModule& m, HloOpcode op) {
  int64_t n = 0;
  for (const HloComputation* c : m.computations()) {
    for (const HloInstruction* i : c->instructions()) n += i->opcode() == op;
  }
  return n;
}

const HloInstruction* Find(const HloModule& m, std::string_view name) {
  for (const HloComputation* c : m.computations()) {
    if (const HloInstruction* i = c->GetInstructionWithName(name)) return i;
  }
  return nullptr;
}

TEST(CorpusFactsTest, Llama3TrainStep) {
  auto m = Parse("hlo_llama3_8b_cp_bf16_1x4.hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "jit_train_step");
  EXPECT_EQ(m->computation_count(), 137);
  EXPECT_EQ(m->instruction_count(), 2325);
  EXPECT_EQ(m->entry_computation()->name(), "main.66_spmd");
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kWhile), 2);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kConditional), 9);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kAllReduce), 50);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kAllGather), 18);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCollectivePermute), 11);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCustomCall), 12);
  EXPECT_EQ(m->num_partitions(), 4);
  EXPECT_FALSE(m->has_schedule());
  EXPECT_EQ(m->input_output_alias_config().size(), 39);
  auto alias = m->input_output_alias_config().GetAliasedParameter({7});
  ASSERT_TRUE(alias.has_value());
  EXPECT_EQ(alias->parameter_number, 7);
  EXPECT_TRUE(alias->parameter_index.empty());
  EXPECT_EQ(alias->kind, HloInputOutputAliasConfig::kMayAlias);
  EXPECT_TRUE(m->has_explicit_entry_computation_layout());
  EXPECT_EQ(m->entry_computation_layout().parameter_count(), 43);
  EXPECT_EQ(m->entry_computation_layout().parameter_shape(2).ToString(), "f32[1024,32,14336]{2,1,0}");
  ASSERT_TRUE(m->GetRawAttribute("allow_spmd_sharding_propagation_to_output").has_value());
  // Conditionals use branch_computations; while loops have body/condition.
  for (const HloComputation* c : m->computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() == HloOpcode::kConditional) {
        EXPECT_FALSE(i->conditional_uses_true_false_form());
        EXPECT_GE(i->branch_count(), 2);
      }
      if (i->opcode() == HloOpcode::kWhile) {
        ASSERT_NE(i->while_body(), nullptr);
        ASSERT_NE(i->while_condition(), nullptr);
        EXPECT_NE(i->while_body(), i->while_condition());
      }
      if (i->opcode() == HloOpcode::kCustomCall) {
        EXPECT_EQ(i->GetRawAttribute("api_version").value_or(""), "API_VERSION_TYPED_FFI");
        EXPECT_TRUE(i->custom_call_target().rfind("te_fused_attn_", 0) == 0) << i->custom_call_target();
      }
      if (i->opcode() == HloOpcode::kCollectivePermute) {
        EXPECT_TRUE(i->channel_id().has_value());
      }
    }
  }
  // 12 unused reduction computations.
  auto clone = m->Clone();
  EXPECT_EQ(clone->RemoveUnusedComputations(), 12);
}

TEST(CorpusFactsTest, AttentionModel) {
  auto m = Parse("attention_model.hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "cluster_861894508132706204_f15n_1__.8394");
  EXPECT_EQ(m->computation_count(), 224);
  EXPECT_EQ(m->instruction_count(), 8170);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kWhile), 3);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCall), 3);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kAllReduce), 36);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kGather), 44);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kScatter), 12);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kDot), 81);
  EXPECT_EQ(m->input_output_alias_config().size(), 111);
  auto alias = m->input_output_alias_config().GetAliasedParameter({110});
  ASSERT_TRUE(alias.has_value());
  EXPECT_EQ(alias->parameter_number, 0);
  EXPECT_EQ(alias->parameter_index, ShapeIndex({110}));
  // The single entry parameter is a 111-element tuple.
  EXPECT_EQ(m->entry_computation()->num_parameters(), 1);
  EXPECT_EQ(m->entry_computation()->parameter_instruction(0)->shape().tuple_shapes_size(), 111);
  // TPU tiled layouts survive the round trip.
  const std::string printed = PrintHloModule(*m);
  EXPECT_NE(printed.find("f32[512,128]{1,0:T(8,128)}"), std::string::npos);
  EXPECT_NE(printed.find("{:T(128)}"), std::string::npos);
  EXPECT_NE(printed.find("constant(-inf)"), std::string::npos);
  EXPECT_NE(printed.find("constant({...})"), std::string::npos);
  // Tiled scalar layout: no minor_to_major, one tile.
  const HloInstruction* p = m->entry_computation()->parameter_instruction(0);
  const Shape& first = p->shape().tuple_shapes(0);
  ASSERT_TRUE(first.has_layout());
  ASSERT_EQ(first.layout().tiles().size(), 1u);
  EXPECT_EQ(first.layout().tiles()[0].dimensions(), std::vector<int64_t>({128}));
}

TEST(CorpusFactsTest, GraphSage) {
  auto m = Parse("graphsage_tf.hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computation_count(), 5);
  EXPECT_EQ(m->instruction_count(), 138);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kDot), 7);
  EXPECT_TRUE(m->alias_passthrough_params());
  EXPECT_EQ(m->entry_computation_layout().ToString(),
            "(s32[10]{0}, s32[128,10]{1,0}, s32[1]{0})->f32[1,121]{1,0}");
  const HloInstruction* c = Find(*m, "Maximum.3");
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->has_literal());
  EXPECT_EQ(c->literal().ToStringWithoutShape(), "1.002e-12");
  EXPECT_NEAR(c->literal().GetAsDouble(0), 1e-12, 1e-14);
}

TEST(CorpusFactsTest, SsdMobilenet) {
  auto m = Parse("ssd_mobilenet_tf.hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computation_count(), 1);
  EXPECT_EQ(m->instruction_count(), 508);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kConvolution), 47);
  int depthwise = 0;
  for (const HloInstruction* i : m->entry_computation()->instructions()) {
    if (i->opcode() != HloOpcode::kConvolution) continue;
    ASSERT_TRUE(i->has_window());
    ASSERT_TRUE(i->has_convolution_dimension_numbers());
    depthwise += i->feature_group_count() > 1;
  }
  EXPECT_GT(depthwise, 0);
  EXPECT_EQ(m->entry_computation()->root_instruction()->shape().tuple_shapes_size(), 2);
}

TEST(CorpusFactsTest, IfConditional) {
  auto m = Parse("if_conditional.hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computation_count(), 14);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kConditional), 5);
  EXPECT_EQ(m->entry_computation()->name(), "tfcompile.0");
  const HloInstruction* cond = Find(*m, "conditional.16");
  ASSERT_NE(cond, nullptr);
  EXPECT_TRUE(cond->conditional_uses_true_false_form());
  EXPECT_EQ(cond->branch_computation(0)->name(), "then_branch0");
  EXPECT_EQ(cond->branch_computation(1)->name(), "else_branch0");
  // The "// ------" decoration lines are comments, not module separators.
  auto modules = ParseHloModules(ReadTestData("hlo/if_conditional.hlo"), "if_conditional.hlo");
  ASSERT_TRUE(modules.ok()) << modules.status();
  EXPECT_EQ(modules->size(), 1u);
}

TEST(CorpusFactsTest, DynamicUpdateSliceModules) {
  auto modules = ParseHloModules(ReadTestData("hlo/dynamic_update_slice_inplace_bf16.hlo"),
                                 "dynamic_update_slice_inplace_bf16.hlo");
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_EQ(modules->size(), 5u);
  const HloModule& first = *(*modules)[0];
  EXPECT_EQ(first.name(), "MultipleInplaceDus");
  EXPECT_TRUE(first.has_schedule());
  EXPECT_TRUE(first.schedule().Verify().ok());
  EXPECT_EQ(first.input_output_alias_config().ToString(),
            "{ {0}: (0, {}, may-alias), {1}: (2, {}, may-alias) }");
  // The fused computation is not scheduled; main is.
  const HloComputation* fused = first.GetComputationWithName("fused_computation");
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->IsFusionComputation());
  EXPECT_FALSE(first.schedule().is_computation_scheduled(fused));
  EXPECT_TRUE(first.schedule().is_computation_scheduled(first.entry_computation()));
  for (const auto& m : *modules) {
    EXPECT_TRUE(m->has_schedule());
    EXPECT_EQ(CountOpcode(*m, HloOpcode::kFusion), 1);
  }
  EXPECT_EQ((*modules)[2]->input_output_alias_config().ToString(), "{ {}: (0, {}, may-alias) }");
}

TEST(CorpusFactsTest, TestHloConvolution) {
  auto m = Parse("test_hlo.txt");
  ASSERT_NE(m, nullptr);
  const HloInstruction* conv = m->entry_computation()->root_instruction();
  EXPECT_EQ(conv->opcode(), HloOpcode::kConvolution);
  EXPECT_EQ(conv->window().ToString(), "size=32x128 stride=31x1 lhs_dilate=32x1");
  EXPECT_EQ(conv->dim_labels(), "0bf1_0oi1->0bf1");
  EXPECT_EQ(conv->convolution_dimension_numbers().input_batch_dimension, 1);
  EXPECT_EQ(conv->convolution_dimension_numbers().input_feature_dimension, 2);
  EXPECT_EQ(conv->convolution_dimension_numbers().input_spatial_dimensions,
            std::vector<int64_t>({0, 3}));
  EXPECT_EQ(conv->window().dimensions[0].base_dilation, 32);
}

TEST(CorpusFactsTest, HostOffloadWhileLoops) {
  auto m = Parse("host_offload_jit_f_while_loops.hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computation_count(), 8);
  EXPECT_EQ(m->instruction_count(), 174);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kWhile), 3);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCall), 1);
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kOptimizationBarrier), 1);
  int pinned = 0, device = 0;
  for (const HloComputation* c : m->computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() != HloOpcode::kCustomCall) continue;
      EXPECT_EQ(i->custom_call_target(), "annotate_device_placement");
      auto placement = i->frontend_attributes().Get("_xla_buffer_placement");
      ASSERT_TRUE(placement.has_value());
      pinned += *placement == "pinned_host";
      device += *placement == "device";
    }
  }
  EXPECT_EQ(pinned, 2);
  EXPECT_EQ(device, 2);
}

TEST(CorpusFactsTest, TpuS4MemorySpaces) {
  auto m = Parse("tpu_s4_dus_fusion_memory_spaces.hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computation_count(), 3);
  EXPECT_EQ(m->instruction_count(), 20);
  EXPECT_TRUE(m->has_schedule());
  const HloInstruction* fusion = Find(*m, "fusion.21");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->shape().ToString(), "s4[8,32768,1,256]{3,1,0,2:T(64,128)(8,1)E(4)S(1)}");
  EXPECT_EQ(fusion->shape().layout().memory_space(), 1);
  EXPECT_EQ(fusion->shape().layout().element_size_in_bits(), 4);
  // Packed s4: 8*32768*256 elements at 4 bits.
  EXPECT_EQ(ShapeUtil::ByteSizeOf(fusion->shape()), int64_t{8} * 32768 * 256 / 2);
  const HloInstruction* select = Find(*m, "select.32");
  ASSERT_NE(select, nullptr);
  EXPECT_EQ(select->shape().ToString(), "s32[]{:T(128)S(6)}");
  EXPECT_EQ(select->shape().memory_space(), 6);
  const HloInstruction* nested = Find(*m, "fusion.505");
  ASSERT_NE(nested, nullptr);
  ASSERT_EQ(nested->output_to_operand_aliasing().size(), 1u);
  EXPECT_EQ(nested->output_to_operand_aliasing()[0].operand_number, 0);
  EXPECT_EQ(nested->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(nested->fused_instructions_computation()->name(), "copy_fusion.20.clone");
  EXPECT_NE(fusion->backend_config_text().find("aliasing_operands"), std::string_view::npos);
}

}  // namespace
}  // namespace hmo
