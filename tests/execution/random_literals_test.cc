// Deterministic random literals and elided-constant filling.

#include "hmo/execution/random_literals.h"

#include <cmath>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

TEST(SplitMix64Test, MatchesTheReferenceSequence) {
  // The first outputs of splitmix64 seeded with 0 (Vigna's reference code).
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.Next(), 0x6E789E6AA1B965F4ull);
}

TEST(RandomLiteralTest, SameSeedSameBytesDifferentSeedDiffers) {
  const Shape shape(PrimitiveType::F32, {4, 8});
  const Literal a = MakeRandomLiteral(shape, 7);
  const Literal b = MakeRandomLiteral(shape, 7);
  const Literal c = MakeRandomLiteral(shape, 8);
  EXPECT_EQ(a.raw_data(), b.raw_data());
  EXPECT_NE(a.raw_data(), c.raw_data());
  // Pinned so that a change of generator (and with it every recorded run)
  // is noticed: first element for seed 7.
  const Literal pinned = MakeRandomLiteral(Shape(PrimitiveType::F32, {1}), 7);
  SplitMix64 rng(7);
  const double expected = std::ldexp(static_cast<double>(static_cast<int64_t>(rng.Next() >> 40) - (1 << 23)), -23);
  EXPECT_EQ(pinned.GetAsDouble(0), expected);
}

TEST(RandomLiteralTest, ValuesStayInTheirDocumentedRanges) {
  const Literal f = MakeRandomLiteral(Shape(PrimitiveType::F32, {1000}), 1);
  const Literal h = MakeRandomLiteral(Shape(PrimitiveType::BF16, {1000}), 1);
  const Literal i = MakeRandomLiteral(Shape(PrimitiveType::S32, {1000}), 1);
  const Literal s4 = MakeRandomLiteral(Shape(PrimitiveType::S4, {1000}), 1);
  const Literal p = MakeRandomLiteral(Shape(PrimitiveType::PRED, {1000}), 1);
  bool saw_negative = false;
  int64_t trues = 0;
  int64_t max_int = 0;
  for (int64_t k = 0; k < 1000; ++k) {
    EXPECT_GE(f.GetAsDouble(k), -1.0);
    EXPECT_LT(f.GetAsDouble(k), 1.0);
    EXPECT_GE(h.GetAsDouble(k), -1.0);
    EXPECT_LT(h.GetAsDouble(k), 1.0);  // quantized so that none rounds up to 1
    saw_negative |= f.GetAsDouble(k) < 0;
    EXPECT_GE(i.GetAsInt64(k), 0);
    EXPECT_LT(i.GetAsInt64(k), 16);
    max_int = std::max(max_int, i.GetAsInt64(k));
    EXPECT_GE(s4.GetAsInt64(k), 0);
    EXPECT_LE(s4.GetAsInt64(k), 7);
    trues += p.GetAsInt64(k);
  }
  EXPECT_TRUE(saw_negative);
  EXPECT_EQ(max_int, 15);
  EXPECT_GT(trues, 400);
  EXPECT_LT(trues, 600);
}

TEST(RandomLiteralTest, TupleElementsGetTheirOwnStreams) {
  const Shape leaf(PrimitiveType::F32, {3});
  const Literal tuple = MakeRandomLiteral(Shape::MakeTuple({leaf, leaf}), 5);
  ASSERT_EQ(tuple.tuple_elements().size(), 2u);
  EXPECT_NE(tuple.tuple_elements()[0].raw_data(), tuple.tuple_elements()[1].raw_data());
  EXPECT_EQ(tuple.tuple_elements()[1].raw_data(), MakeRandomLiteral(leaf, DeriveSeed(5, uint64_t{1})).raw_data());
}

constexpr char kElidedModule[] = R"(
HloModule elided

ENTRY main {
  p = f32[4] parameter(0)
  w = f32[4] constant({...})
  b = s32[2] constant({...})
  k = f32[2] constant({1, 2})
  ROOT add = f32[4] add(p, w)
}
)";

TEST(FillElidedConstantsTest, FillsEveryElidedConstantByName) {
  auto module = ParseHloModule(kElidedModule);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(FillElidedConstants(**module, 3), 2);
  const HloComputation* entry = (*module)->entry_computation();
  const HloInstruction* w = nullptr;
  const HloInstruction* k = nullptr;
  for (const HloInstruction* instruction : entry->instructions()) {
    if (instruction->name() == "w") w = instruction;
    if (instruction->name() == "k") k = instruction;
  }
  ASSERT_NE(w, nullptr);
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(w->literal().is_elided());
  EXPECT_EQ(w->literal().raw_data(),
            MakeRandomLiteral(Shape(PrimitiveType::F32, {4}), DeriveSeed(3, "w")).raw_data());
  EXPECT_EQ(k->literal().ToStringWithoutShape(), "{1, 2}");  // untouched
  EXPECT_EQ(FillElidedConstants(**module, 3), 0);            // nothing left

  // Same seed, a fresh parse: same values; another seed: different ones.
  auto again = ParseHloModule(kElidedModule);
  ASSERT_TRUE(again.ok());
  FillElidedConstants(**again, 3);
  EXPECT_EQ((*again)->ToString(), (*module)->ToString());
  auto other = ParseHloModule(kElidedModule);
  ASSERT_TRUE(other.ok());
  FillElidedConstants(**other, 4);
  EXPECT_NE((*other)->ToString(), (*module)->ToString());
}

TEST(RandomArgumentsTest, OnePerEntryParameter) {
  auto module = ParseHloModule(R"(
HloModule args

ENTRY main {
  a = f32[2] parameter(0)
  b = s32[3] parameter(1)
  ROOT t = (f32[2], s32[3]) tuple(a, b)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> arguments = MakeRandomArguments(**module, 9);
  ASSERT_EQ(arguments.size(), 2u);
  EXPECT_EQ(arguments[1].shape().ToString(false), "s32[3]");
  EXPECT_EQ(arguments[0].raw_data(),
            MakeRandomLiteral(Shape(PrimitiveType::F32, {2}), DeriveSeed(9, uint64_t{0})).raw_data());
}

}  // namespace
}  // namespace hmo
