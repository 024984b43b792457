// MemoryModel counts a single-computation module exactly as the heap
// simulator does: checked on random modules (elementwise ops that reuse a
// dying operand's buffer, slices, concatenations, reversals, a tuple root,
// parameters donated to outputs) under random orders.

#include "core/memory_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "test_support.h"

namespace hmo::scheduler {
namespace {

// A random module of about `n` instructions over f32 vectors.
std::string RandomModule(std::mt19937& rng, int n) {
  struct Def {
    std::string name;
    int size;  // elements
    std::set<std::string> operands;
    std::set<std::string> ancestors;  // transitive operands
  };
  std::vector<Def> defs;
  std::string body;
  auto pick = [&]() -> const Def& {
    // Recent instructions more often, so chains form.
    int k = static_cast<int>(defs.size());
    int i = rng() % 3 == 0 ? static_cast<int>(rng() % k) : std::max(0, k - 1 - int(rng() % 4));
    return defs[i];
  };
  auto add = [&](const std::string& name, int size, const std::string& op) {
    body += fmt::format("  {} = f32[{}] {}\n", name, size, op);
    Def def{name, size, {}, {}};
    for (const Def& d : defs) {
      // Operand names appear in the op text as "(name" or " name" followed by
      // ',' or ')'.
      for (const std::string& around : {"(" + d.name + ")", "(" + d.name + ",", " " + d.name + ")",
                                        " " + d.name + ","}) {
        if (op.find(around) != std::string::npos) def.operands.insert(d.name);
      }
    }
    for (const Def& d : defs) {
      if (def.operands.count(d.name)) {
        def.ancestors.insert(d.name);
        def.ancestors.insert(d.ancestors.begin(), d.ancestors.end());
      }
    }
    defs.push_back(std::move(def));
  };
  const int parameters = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < parameters; ++i) {
    add(fmt::format("p{}", i), 2 << (rng() % 4), fmt::format("parameter({})", i));
  }
  for (int i = 0; defs.size() < static_cast<size_t>(n); ++i) {
    const Def a = pick();
    const std::string name = fmt::format("v{}", i);
    switch (rng() % 6) {
      case 0:
        add(name, a.size, fmt::format("negate({})", a.name));
        break;
      case 1:
        add(name, a.size, fmt::format("exponential({})", a.name));
        break;
      case 2: {
        // A binary op needs a second operand of the same size.
        std::vector<std::string> same;
        for (const Def& d : defs) {
          if (d.size == a.size) same.push_back(d.name);
        }
        const std::string& b = same[rng() % same.size()];
        add(name, a.size, fmt::format("{}({}, {})", rng() % 2 ? "add" : "multiply", a.name, b));
        break;
      }
      case 3:
        if (a.size > 2) {
          add(name, a.size / 2, fmt::format("slice({}), slice={{[0:{}]}}", a.name, a.size / 2));
        } else {
          add(name, a.size, fmt::format("negate({})", a.name));
        }
        break;
      case 4: {
        const Def b = pick();
        if (a.size + b.size <= 32) {
          add(name, a.size + b.size,
              fmt::format("concatenate({}, {}), dimensions={{0}}", a.name, b.name));
        } else {
          add(name, a.size, fmt::format("reverse({}), dimensions={{0}}", a.name));
        }
        break;
      }
      default:
        add(name, a.size, fmt::format("reverse({}), dimensions={{0}}", a.name));
    }
  }
  // The root returns the last few values.
  std::string shape, operands;
  const int outputs = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < outputs; ++k) {
    const Def& d = defs[defs.size() - 1 - k];
    shape += (k ? ", " : "") + fmt::format("f32[{}]", d.size);
    operands += (k ? ", " : "") + d.name;
  }
  body += fmt::format("  ROOT out = ({}) tuple({})\n", shape, operands);
  // Donate some parameters to outputs of their size that are computed after
  // every read of the parameter in any order (as copy insertion ensures in
  // XLA), so the donated buffer is free when the output is written.
  std::string aliases;
  std::vector<bool> donated(parameters, false);
  auto after_all_readers = [&](const Def& output, const std::string& parameter) {
    for (const Def& d : defs) {
      if (d.operands.count(parameter) && d.name != output.name && !output.ancestors.count(d.name)) {
        return false;
      }
    }
    return true;
  };
  for (int k = 0; k < outputs; ++k) {
    const Def& d = defs[defs.size() - 1 - k];
    for (int p = 0; p < parameters; ++p) {
      if (!donated[p] && defs[p].size == d.size && after_all_readers(d, defs[p].name) &&
          rng() % 4 != 0) {
        donated[p] = true;
        aliases += fmt::format("{}{{{}}}: ({}, {{}}, may-alias)", aliases.empty() ? "" : ", ",
                               k, p);
        break;
      }
    }
  }
  return fmt::format("HloModule random{}\n\nENTRY main {{\n{}}}\n",
                     aliases.empty() ? "" : ", input_output_alias={ " + aliases + " }", body);
}

TEST(MemoryModel, MatchesTheHeapSimulatorOnOneComputation) {
  std::mt19937 rng(41);
  int with_reuse = 0, donated = 0;
  for (int round = 0; round < 150; ++round) {
    const std::string text = RandomModule(rng, 6 + round % 25);
    absl::StatusOr<std::unique_ptr<testing::AnalyzedModule>> m =
        testing::AnalyzedModule::Parse(text);
    ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
    SchedulingGraph graph = (*m)->Graph();
    MemoryModel model(graph);
    for (int i = 0; i < graph.instruction_count(); ++i) {
      with_reuse += !model.share_candidates(i).empty();
    }
    for (int v = 0; v < graph.value_count(); ++v) donated += model.live_in(v);
    for (int trial = 0; trial < 4; ++trial) {
      // Parameters first: a donated parameter's buffer is handed to its output
      // no earlier than the parameter's own step (see memory_model.h).
      std::vector<int> order = testing::RandomOrder(graph, rng);
      std::stable_partition(order.begin(), order.end(), [&](int i) {
        return graph.instruction(i).opcode == "parameter";
      });
      const int64_t simulated =
          (*m)->Peak((*m)->Schedule([&](const SchedulingGraph&) { return order; }));
      ASSERT_EQ(model.Peak(order), simulated)
          << text << "order: " << testing::Names(graph, order);
    }
  }
  // Buffer reuse and donated parameters really were exercised.
  EXPECT_GT(with_reuse, 100);
  EXPECT_GT(donated, 20);
}

}  // namespace
}  // namespace hmo::scheduler
