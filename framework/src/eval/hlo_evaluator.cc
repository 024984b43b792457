// The evaluator's driver: walks a computation in post order, hands each
// instruction's operand values to its opcode handler, and implements the
// opcodes that evaluate other computations (call, fusion, while,
// conditional) or only rearrange values (parameter, constant, tuple,
// get-tuple-element, copies and annotations). EvaluateReplicated runs one
// such walk per SPMD device on its own thread.

#include "hmo/eval/hlo_evaluator.h"

#include <algorithm>
#include <deque>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "collective_exchange.h"
#include "fmt/format.h"
#include "hmo/base/loop_trip_budget.h"
#include "hmo/ir/collective_attributes.h"
#include "hmo/ir/custom_call_targets.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/shape.h"
#include "opcode_handlers.h"

namespace hmo {
namespace {

using eval_internal::CollectiveExchange;
using eval_internal::ComputationRunner;
using eval_internal::DeviceContext;
using eval_internal::DeviceName;
using eval_internal::Operands;

std::string Describe(const HloInstruction& instr) {
  return absl::StrCat(std::string(HloOpcodeString(instr.opcode())), " ", instr.name());
}

// One evaluation (of a module or a computation). Caches each computation's
// evaluation order, since reducers and loop bodies run many times.
class Interpreter {
 public:
  Interpreter(const HloEvaluator::Options& options, DeviceContext* device)
      : options_(options), device_(device) {
    runner_ = [this](const HloComputation& computation, absl::Span<const Literal> args) {
      return Run(computation, args);
    };
  }

  absl::StatusOr<Literal> Run(const HloComputation& computation, absl::Span<const Literal> args);

 private:
  // The instructions the root depends on, operands before users.
  const std::vector<const HloInstruction*>& EvaluationOrder(const HloComputation& computation);

  // The value of `instr`; *borrowed is set instead (and the result unused)
  // for values that already exist elsewhere (parameters, constants).
  absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& instr, Operands operands,
                                              absl::Span<const Literal> args,
                                              const Literal** borrowed);
  absl::StatusOr<Literal> EvaluateWhile(const HloInstruction& instr, const Literal& init);
  absl::StatusOr<Literal> EvaluateConditional(const HloInstruction& instr, Operands operands);

  HloEvaluator::Options options_;
  DeviceContext* device_;  // this device's number and exchange
  ComputationRunner runner_;
  absl::flat_hash_map<const HloComputation*, std::vector<const HloInstruction*>> orders_;
};

const std::vector<const HloInstruction*>& Interpreter::EvaluationOrder(
    const HloComputation& computation) {
  auto it = orders_.find(&computation);
  if (it != orders_.end()) return it->second;
  std::vector<const HloInstruction*> order;
  // Post order restricted to what the root needs: dead instructions (and
  // their side effects) do not contribute to the result.
  absl::flat_hash_map<const HloInstruction*, bool> needed;
  std::vector<const HloInstruction*> stack{computation.root_instruction()};
  while (!stack.empty()) {
    const HloInstruction* instr = stack.back();
    stack.pop_back();
    if (instr == nullptr || needed[instr]) continue;
    needed[instr] = true;
    for (const HloInstruction* operand : instr->operands()) stack.push_back(operand);
  }
  for (const HloInstruction* instr : computation.MakeInstructionPostOrder()) {
    if (needed[instr]) order.push_back(instr);
  }
  return orders_.emplace(&computation, std::move(order)).first->second;
}

absl::StatusOr<Literal> Interpreter::Run(const HloComputation& computation,
                                         absl::Span<const Literal> args) {
  if (static_cast<int64_t>(args.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: computation ", computation.name(),
                                                   " takes ", computation.num_parameters(),
                                                   " arguments, got ", args.size()));
  }
  const std::vector<const HloInstruction*>& order = EvaluationOrder(computation);
  // Values are freed after their last use so that large models stay small.
  absl::flat_hash_map<const HloInstruction*, int64_t> remaining_uses;
  for (const HloInstruction* instr : order) {
    for (const HloInstruction* operand : instr->operands()) ++remaining_uses[operand];
  }
  absl::flat_hash_map<const HloInstruction*, const Literal*> values;
  std::deque<Literal> owned;
  absl::flat_hash_map<const HloInstruction*, Literal*> owned_by;
  std::vector<const Literal*> operand_values;
  for (const HloInstruction* instr : order) {
    operand_values.clear();
    for (const HloInstruction* operand : instr->operands()) operand_values.push_back(values.at(operand));
    const Literal* borrowed = nullptr;
    absl::StatusOr<Literal> value = EvaluateInstruction(*instr, operand_values, args, &borrowed);
    if (!value.ok()) return value.status();
    if (borrowed != nullptr) {
      values[instr] = borrowed;
    } else {
      owned.push_back(std::move(*value));
      values[instr] = &owned.back();
      owned_by[instr] = &owned.back();
    }
    for (const HloInstruction* operand : instr->operands()) {
      if (--remaining_uses[operand] == 0 && operand != computation.root_instruction()) {
        auto it = owned_by.find(operand);
        if (it != owned_by.end()) *it->second = Literal();
      }
    }
  }
  const HloInstruction* root = computation.root_instruction();
  auto it = owned_by.find(root);
  if (it != owned_by.end()) return std::move(*it->second);
  return *values.at(root);
}

absl::StatusOr<Literal> Interpreter::EvaluateInstruction(const HloInstruction& instr,
                                                         Operands operands,
                                                         absl::Span<const Literal> args,
                                                         const Literal** borrowed) {
  using namespace eval_internal;  // NOLINT: the handlers.
  const HloOpcode op = instr.opcode();
  if (IsElementwiseUnaryOpcode(op)) return HandleElementwiseUnary(instr, operands);
  if (IsElementwiseBinaryOpcode(op)) return HandleElementwiseBinary(instr, operands);
  if (IsDeviceOpcode(op)) return HandleDeviceOpcode(instr, operands, *device_, runner_);
  switch (op) {
    case HloOpcode::kParameter: {
      const int64_t number = instr.parameter_number();
      if (number < 0 || number >= static_cast<int64_t>(args.size())) {
        return absl::InvalidArgumentError(absl::StrCat("evaluator: no argument for ", Describe(instr)));
      }
      *borrowed = &args[number];
      return Literal();
    }
    case HloOpcode::kConstant:
      if (!instr.has_literal() || instr.literal().is_elided()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "evaluator: constant ", instr.name(),
            " is elided ({...}); fill its value before evaluating"));
      }
      *borrowed = &instr.literal();
      return Literal();
    case HloOpcode::kTuple: {
      std::vector<Literal> elements;
      for (const Literal* operand : operands) elements.push_back(*operand);
      return Literal::MakeTuple(std::move(elements));
    }
    case HloOpcode::kGetTupleElement: {
      const std::vector<Literal>& elements = operands[0]->tuple_elements();
      if (instr.tuple_index() < 0 || instr.tuple_index() >= static_cast<int64_t>(elements.size())) {
        return absl::InvalidArgumentError(absl::StrCat("evaluator: ", Describe(instr),
                                                       " indexes past its tuple"));
      }
      return elements[instr.tuple_index()];
    }
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      return *operands[0];
    case HloOpcode::kCopyStart:
      // (destination, source, context), as XLA shapes it.
      return Literal::MakeTuple({*operands[0], *operands[0], Literal(instr.shape().tuple_shapes(2))});
    case HloOpcode::kCopyDone:
      return operands[0]->tuple_elements().at(0);
    case HloOpcode::kAfterAll:
      return Literal(Shape::MakeToken());
    case HloOpcode::kCustomCall:
      if (IsValuePassingCustomCallTarget(instr.custom_call_target()) && operands.size() == 1) {
        return *operands[0];
      }
      if (instr.custom_call_target() == "TopK" && operands.size() == 1 &&
          instr.called_computations().size() == 1) {
        return HandleTopK(instr, operands, instr.called_computations()[0], runner_);
      }
      return absl::UnimplementedError(absl::StrCat("evaluator: custom-call ", instr.name(),
                                                   " with target \"", instr.custom_call_target(),
                                                   "\" is not supported"));
    case HloOpcode::kCompare: return HandleCompare(instr, operands);
    case HloOpcode::kSelect: return HandleSelect(instr, operands);
    case HloOpcode::kClamp: return HandleClamp(instr, operands);
    case HloOpcode::kConvert: return HandleConvert(instr, operands);
    case HloOpcode::kBitcastConvert: return HandleBitcastConvert(instr, operands);
    case HloOpcode::kIota: return HandleIota(instr);
    case HloOpcode::kBroadcast: return HandleBroadcast(instr, operands);
    case HloOpcode::kReshape: return HandleReshape(instr, operands);
    case HloOpcode::kBitcast: return HandleBitcast(instr, operands);
    case HloOpcode::kTranspose: return HandleTranspose(instr, operands);
    case HloOpcode::kReverse: return HandleReverse(instr, operands);
    case HloOpcode::kSlice: return HandleSlice(instr, operands);
    case HloOpcode::kDynamicSlice: return HandleDynamicSlice(instr, operands);
    case HloOpcode::kDynamicUpdateSlice: return HandleDynamicUpdateSlice(instr, operands);
    case HloOpcode::kConcatenate: return HandleConcatenate(instr, operands);
    case HloOpcode::kPad: return HandlePad(instr, operands);
    case HloOpcode::kReduce: return HandleReduce(instr, operands, runner_);
    case HloOpcode::kReduceWindow: return HandleReduceWindow(instr, operands, runner_);
    case HloOpcode::kMap: return HandleMap(instr, operands, runner_);
    case HloOpcode::kDot: return HandleDot(instr, operands);
    case HloOpcode::kConvolution: return HandleConvolution(instr, operands);
    case HloOpcode::kGather: return HandleGather(instr, operands);
    case HloOpcode::kScatter: return HandleScatter(instr, operands, runner_);
    case HloOpcode::kSort: return HandleSort(instr, operands, runner_);
    case HloOpcode::kTopK: return HandleTopK(instr, operands, nullptr, runner_);
    case HloOpcode::kSelectAndScatter: return HandleSelectAndScatter(instr, operands, runner_);
    case HloOpcode::kCall: {
      std::vector<Literal> call_args;
      for (const Literal* operand : operands) call_args.push_back(*operand);
      return Run(*instr.to_apply(), call_args);
    }
    case HloOpcode::kFusion: {
      std::vector<Literal> fusion_args;
      for (const Literal* operand : operands) fusion_args.push_back(*operand);
      return Run(*instr.fused_instructions_computation(), fusion_args);
    }
    case HloOpcode::kWhile: return EvaluateWhile(instr, *operands[0]);
    case HloOpcode::kConditional: return EvaluateConditional(instr, operands);
    default:
      return absl::UnimplementedError(absl::StrCat("evaluator: ", Describe(instr),
                                                   " is not supported"));
  }
}

absl::StatusOr<Literal> Interpreter::EvaluateWhile(const HloInstruction& instr,
                                                   const Literal& init) {
  std::vector<Literal> state;
  state.push_back(init);
  for (int64_t iteration = 0;; ++iteration) {
    absl::StatusOr<Literal> keep_going = Run(*instr.while_condition(), state);
    if (!keep_going.ok()) return keep_going.status();
    if (!keep_going->GetAsBool(0)) break;
    if (options_.max_loop_iterations >= 0 && iteration >= options_.max_loop_iterations) {
      return LoopTripBudgetExceeded("evaluator", instr.name(), options_.max_loop_iterations);
    }
    absl::StatusOr<Literal> next = Run(*instr.while_body(), state);
    if (!next.ok()) return next.status();
    state[0] = std::move(*next);
  }
  return std::move(state[0]);
}

absl::StatusOr<Literal> Interpreter::EvaluateConditional(const HloInstruction& instr,
                                                         Operands operands) {
  const Literal& selector = *operands[0];
  const int64_t branches = instr.branch_count();
  int64_t branch;
  if (selector.element_type() == PrimitiveType::PRED) {
    branch = selector.GetAsBool(0) ? 0 : 1;
  } else {
    branch = selector.GetAsInt64(0);
    // XLA runs the last branch for any index out of range.
    if (branch < 0 || branch >= branches) branch = branches - 1;
  }
  if (branch + 1 >= static_cast<int64_t>(operands.size())) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: ", Describe(instr),
                                                   " has no operand for branch ", branch));
  }
  std::vector<Literal> branch_args;
  branch_args.push_back(*operands[branch + 1]);
  return Run(*instr.branch_computation(branch), branch_args);
}

absl::Status CheckArguments(const HloComputation& computation, absl::Span<const Literal> arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: ", computation.name(), " takes ",
                                                   computation.num_parameters(),
                                                   " arguments, got ", arguments.size()));
  }
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    const Shape& expected = computation.parameter_instruction(i)->shape();
    if (!ShapeUtil::EqualIgnoringLayout(expected, arguments[i].shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "evaluator: argument ", i, " of ", computation.name(), " has shape ",
          arguments[i].shape().ToString(false), ", expected ", expected.ToString(false)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> HloEvaluator::Evaluate(const HloModule& module,
                                               absl::Span<const Literal> arguments) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: module ", module.name(),
                                                   " has no entry computation"));
  }
  return Evaluate(*entry, arguments);
}

absl::StatusOr<Literal> HloEvaluator::Evaluate(const HloComputation& computation,
                                               absl::Span<const Literal> arguments) {
  absl::Status checked = CheckArguments(computation, arguments);
  if (!checked.ok()) return checked;
  // One device, of a 1x1 grid: every collective is a group of one, met at
  // once.
  CollectiveExchange exchange(DeviceGrid{}, options_.collective_timeout);
  DeviceContext device{0, &exchange, {}};
  Interpreter interpreter(options_, &device);
  return interpreter.Run(computation, arguments);
}

absl::StatusOr<std::vector<Literal>> HloEvaluator::EvaluateReplicated(
    const HloModule& module, const std::vector<std::vector<Literal>>& arguments_per_device) {
  const int64_t devices = static_cast<int64_t>(arguments_per_device.size());
  if (devices < 1)
    return absl::InvalidArgumentError("evaluator: EvaluateReplicated needs at least one device");
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("evaluator: module ", module.name(),
                                                   " has no entry computation"));
  }
  const int64_t partitions = std::max<int64_t>(module.num_partitions(), 1);
  if (devices % partitions != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "evaluator: {} devices are not a whole number of replicas of module {}'s {} partitions",
        devices, module.name(), partitions));
  }
  const DeviceGrid grid{devices / partitions, partitions};
  for (int64_t d = 0; d < devices; ++d) {
    absl::Status checked = CheckArguments(*entry, arguments_per_device[d]);
    if (!checked.ok()) {
      return absl::Status(checked.code(), fmt::format("{}: {}", DeviceName(grid, d),
                                                      std::string(checked.message())));
    }
  }
  CollectiveExchange exchange(grid, options_.collective_timeout);
  std::vector<absl::StatusOr<Literal>> results(
      static_cast<size_t>(devices), absl::InternalError("evaluator: device did not run"));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(devices));
  for (int64_t d = 0; d < devices; ++d) {
    threads.emplace_back([&, d] {
      DeviceContext device{d, &exchange, {}};
      Interpreter interpreter(options_, &device);
      results[d] = interpreter.Run(*entry, arguments_per_device[d]);
      // The others may be waiting for this device at a collective it will
      // never reach now: release them rather than let them time out.
      if (!results[d].ok()) {
        exchange.Abort(
            absl::AbortedError(fmt::format("evaluator: {} failed: {}", DeviceName(grid, d),
                                           std::string(results[d].status().message()))));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  // The error to report is the first one a device ran into by itself, not
  // the ABORTED ones it caused in the others.
  int64_t failed = -1;
  for (int64_t d = 0; d < devices; ++d) {
    if (results[d].ok()) continue;
    if (failed < 0 || (results[failed].status().code() == absl::StatusCode::kAborted &&
                       results[d].status().code() != absl::StatusCode::kAborted)) {
      failed = d;
    }
  }
  if (failed >= 0) {
    const absl::Status& status = results[failed].status();
    return absl::Status(status.code(), fmt::format("{}: {}", DeviceName(grid, failed),
                                                   std::string(status.message())));
  }
  std::vector<Literal> values;
  values.reserve(static_cast<size_t>(devices));
  for (absl::StatusOr<Literal>& result : results) values.push_back(*std::move(result));
  return values;
}

}  // namespace hmo
