// The opcode table (hlo_opcode_class.h) against what the rest of the IR says
// about the same opcodes: fixed arities, shape inference's unary / binary /
// ternary rules, and the async pairs' names.

#include "hmo/ir/hlo_opcode_class.h"

#include <gtest/gtest.h>

#include <string>

#include "hmo/ir/shape.h"
#include "hmo/ir/shape_inference.h"

namespace hmo {
namespace {

constexpr PrimitiveType kElementTypes[] = {PrimitiveType::F32, PrimitiveType::S32,
                                           PrimitiveType::PRED, PrimitiveType::C64};

HloOpcode OpcodeAt(int i) { return static_cast<HloOpcode>(i); }

TEST(HloOpcodeClassTest, ArityMatchesTheClass) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode op = OpcodeAt(i);
    SCOPED_TRACE(std::string(HloOpcodeString(op)));
    switch (HloOpcodeClassOf(op)) {
      case HloOpcodeClass::kElementwiseUnary:
        EXPECT_EQ(HloOpcodeArity(op), 1);
        break;
      case HloOpcodeClass::kElementwiseConversion:
        // stochastic-convert also takes the random bits.
        EXPECT_EQ(HloOpcodeArity(op), op == HloOpcode::kStochasticConvert ? 2 : 1);
        break;
      case HloOpcodeClass::kElementwiseBinary:
        EXPECT_EQ(HloOpcodeArity(op), 2);
        break;
      case HloOpcodeClass::kElementwiseTernary:
        EXPECT_EQ(HloOpcodeArity(op), 3);
        break;
      default:
        break;
    }
    if (IsFloatingUnaryOpcode(op)) {
      EXPECT_EQ(HloOpcodeClassOf(op), HloOpcodeClass::kElementwiseUnary);
    }
  }
}

// The verifier checks every class member with shape inference's rule for the
// class, so inference must take each member on some element type, and
// refuse every opcode outside the class.
TEST(HloOpcodeClassTest, ShapeInferenceAcceptsExactlyTheUnaryAndBinaryClasses) {
  ShapeInference::Options options;
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode op = OpcodeAt(i);
    SCOPED_TRACE(std::string(HloOpcodeString(op)));
    bool unary_accepted = false;
    bool binary_accepted = false;
    for (PrimitiveType type : kElementTypes) {
      const Shape shape = ShapeUtil::MakeShape(type, {2, 3});
      unary_accepted |= ShapeInference::InferUnaryOpShape(op, shape).ok();
      binary_accepted |= ShapeInference::InferBinaryOpShape(op, shape, shape, options).ok();
    }
    EXPECT_EQ(unary_accepted, HloOpcodeClassOf(op) == HloOpcodeClass::kElementwiseUnary);
    EXPECT_EQ(binary_accepted, HloOpcodeClassOf(op) == HloOpcodeClass::kElementwiseBinary);
  }
}

TEST(HloOpcodeClassTest, ClassesOfOpcodesTheCopiesOnceDisagreedOn) {
  EXPECT_EQ(HloOpcodeClassOf(HloOpcode::kReducePrecision), HloOpcodeClass::kElementwiseUnary);
  EXPECT_EQ(HloOpcodeClassOf(HloOpcode::kCompare), HloOpcodeClass::kElementwiseBinary);
  EXPECT_EQ(HloOpcodeClassOf(HloOpcode::kComplex), HloOpcodeClass::kElementwiseBinary);
  EXPECT_EQ(HloOpcodeClassOf(HloOpcode::kCopy), HloOpcodeClass::kElementwiseOther);
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kMap));
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kSelect));
  EXPECT_FALSE(IsElementwiseOpcode(HloOpcode::kDot));
  EXPECT_FALSE(IsElementwiseOpcode(HloOpcode::kAllReduce));
  EXPECT_TRUE(IsCollectiveOpcode(HloOpcode::kAllReduceStart));
  EXPECT_FALSE(IsCollectiveOpcode(HloOpcode::kAllReduceDone));
  EXPECT_FALSE(IsCollectiveOpcode(HloOpcode::kSend));
  EXPECT_FALSE(IsCollectiveOpcode(HloOpcode::kReplicaId));
}

// Every opcode that starts an async pair has its done opcode, and the other way
// round: "x-start" with "x-done", send with send-done, recv with recv-done.
TEST(HloOpcodeClassTest, AsyncStartsAndDonesPairByName) {
  int starts = 0;
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode op = OpcodeAt(i);
    const std::string name(HloOpcodeString(op));
    SCOPED_TRACE(name);
    EXPECT_FALSE(IsAsyncStartOpcode(op) && IsAsyncDoneOpcode(op));
    if (IsAsyncStartOpcode(op)) {
      ++starts;
      const std::string stem =
          name.size() > 6 && name.ends_with("-start") ? name.substr(0, name.size() - 6) : name;
      const std::optional<HloOpcode> done = StringToHloOpcode(stem + "-done");
      ASSERT_TRUE(done.has_value());
      EXPECT_TRUE(IsAsyncDoneOpcode(*done));
    }
    if (IsAsyncDoneOpcode(op)) {
      const std::string stem = name.substr(0, name.size() - 5);
      std::optional<HloOpcode> start = StringToHloOpcode(stem + "-start");
      if (!start.has_value()) start = StringToHloOpcode(stem);
      ASSERT_TRUE(start.has_value());
      EXPECT_TRUE(IsAsyncStartOpcode(*start));
    }
  }
  EXPECT_EQ(starts, 7);
}

}  // namespace
}  // namespace hmo
