#ifndef HMO_TESTS_TEXT_HLO_TEST_UTIL_H_
#define HMO_TESTS_TEXT_HLO_TEST_UTIL_H_

// Helpers shared by the text tests: reading corpus files and comparing two
// modules structurally (not through their printed text alone).

#include <string>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"
#include "support/test_data.h"

namespace hmo::testing {

// First line of the error parsing `text` as file t.hlo
// ("t.hlo:line:col: error: message"), or "<parsed>".
inline std::string ParseErrorLine(std::string_view text) {
  auto m = ParseHloModule(text, "t.hlo");
  if (m.ok()) return "<parsed>";
  std::string msg(m.status().message());
  return msg.substr(0, msg.find('\n'));
}

using test_support::ReadTestData;

inline std::vector<std::string> Names(const std::vector<HloInstruction*>& v) {
  std::vector<std::string> out;
  for (const HloInstruction* i : v) out.push_back(i->name());
  return out;
}

inline std::vector<std::string> Names(const std::vector<HloComputation*>& v) {
  std::vector<std::string> out;
  for (const HloComputation* c : v) out.push_back(c ? c->name() : "<null>");
  return out;
}

// Structural equality: same computations (order, names, entry, threads),
// same instructions in the same order with equal opcodes, shapes (layouts
// included), operands, called computations, control edges, literals and
// attributes (typed ones compared through their canonical text), and equal
// module-level configuration and schedule.
inline void ExpectStructurallyEqual(const HloModule& a, const HloModule& b) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.computation_count(), b.computation_count());
  ASSERT_NE(a.entry_computation(), nullptr);
  ASSERT_NE(b.entry_computation(), nullptr);
  EXPECT_EQ(a.entry_computation()->name(), b.entry_computation()->name());
  EXPECT_EQ(a.has_explicit_entry_computation_layout(), b.has_explicit_entry_computation_layout());
  EXPECT_TRUE(a.entry_computation_layout() == b.entry_computation_layout());
  EXPECT_TRUE(a.input_output_alias_config() == b.input_output_alias_config());
  EXPECT_TRUE(a.buffer_donor_config() == b.buffer_donor_config());
  EXPECT_TRUE(a.stack_frame_index() == b.stack_frame_index());
  EXPECT_EQ(a.alias_passthrough_params(), b.alias_passthrough_params());
  EXPECT_EQ(a.replica_count(), b.replica_count());
  EXPECT_EQ(a.num_partitions(), b.num_partitions());
  EXPECT_TRUE(a.frontend_attributes() == b.frontend_attributes());
  EXPECT_TRUE(a.raw_attributes() == b.raw_attributes());
  EXPECT_EQ(a.has_schedule(), b.has_schedule());
  if (a.has_schedule() && b.has_schedule()) {
    EXPECT_TRUE(a.schedule().SameOrderAs(b.schedule()));
  }
  for (const HloComputation* ca : a.computations()) {
    const HloComputation* cb = b.GetComputationWithName(ca->name());
    ASSERT_NE(cb, nullptr) << "computation " << ca->name() << " missing";
    EXPECT_EQ(ca->execution_thread(), cb->execution_thread());
    EXPECT_EQ(ca->num_parameters(), cb->num_parameters());
    ASSERT_EQ(ca->instruction_count(), cb->instruction_count()) << ca->name();
    EXPECT_EQ(ca->root_instruction()->name(), cb->root_instruction()->name());
    EXPECT_EQ(Names(ca->MakeInstructionVector()), Names(cb->MakeInstructionVector())) << ca->name();
    for (const HloInstruction* ia : ca->instructions()) {
      const HloInstruction* ib = cb->GetInstructionWithName(ia->name());
      ASSERT_NE(ib, nullptr) << ia->name();
      EXPECT_EQ(ia->opcode(), ib->opcode()) << ia->name();
      EXPECT_TRUE(ia->shape() == ib->shape())
          << ia->name() << ": " << ia->shape().ToString() << " vs " << ib->shape().ToString();
      EXPECT_EQ(Names(ia->operands()), Names(ib->operands())) << ia->name();
      EXPECT_EQ(Names(ia->called_computations()), Names(ib->called_computations())) << ia->name();
      EXPECT_EQ(Names(ia->control_predecessors()), Names(ib->control_predecessors())) << ia->name();
      EXPECT_EQ(ia->has_literal(), ib->has_literal());
      if (ia->has_literal() && ib->has_literal()) {
        EXPECT_TRUE(ia->literal() == ib->literal()) << ia->name();
      }
      EXPECT_TRUE(ia->raw_attributes() == ib->raw_attributes()) << ia->name();
      EXPECT_TRUE(ia->frontend_attributes() == ib->frontend_attributes()) << ia->name();
      EXPECT_EQ(ia->parameter_number(), ib->parameter_number());
      EXPECT_EQ(PrintHloInstruction(*ia), PrintHloInstruction(*ib));
    }
  }
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_TEXT_HLO_TEST_UTIL_H_
