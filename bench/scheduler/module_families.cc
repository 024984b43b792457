#include "module_families.h"

#include <random>
#include <vector>

#include "fmt/format.h"

namespace hmo::bench {
namespace {

constexpr const char* kReducers = R"(
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

// Appends one instruction line.
struct Body {
  std::string text;
  template <typename... Args>
  void Line(fmt::format_string<Args...> format, Args&&... args) {
    text += "  ";
    text += fmt::format(format, std::forward<Args>(args)...);
    text += "\n";
  }
};

}  // namespace

std::string MlpTrainStep(int layers, int batch, int width) {
  const std::string act = fmt::format("f32[{},{}]", batch, width);
  const std::string mat = fmt::format("f32[{},{}]", width, width);
  Body b;
  b.Line("x = {} parameter(0)", act);
  b.Line("target = {} parameter(1)", act);
  for (int i = 1; i <= layers; ++i) b.Line("w{} = {} parameter({})", i, mat, i + 1);
  b.Line("lr = f32[] constant(0.01)");
  b.Line("one = f32[] constant(1)");
  b.Line("zero = f32[] constant(0)");
  auto a_name = [](int i) { return i == 0 ? std::string("x") : fmt::format("a{}", i); };
  for (int i = 1; i <= layers; ++i) {
    b.Line("z{} = {} dot({}, w{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}", i, act,
           a_name(i - 1), i);
    if (i < layers) b.Line("a{} = {} tanh(z{})", i, act, i);
  }
  b.Line("diff = {} subtract(z{}, target)", act, layers);
  b.Line("sq = {} multiply(diff, diff)", act);
  b.Line("loss = f32[] reduce(sq, zero), dimensions={{0,1}}, to_apply=add_f32");
  std::string dz = "diff";
  std::vector<std::string> outputs = {"loss"};
  for (int i = layers; i >= 1; --i) {
    b.Line("gw{} = {} dot({}, {}), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}", i, mat,
           a_name(i - 1), dz);
    b.Line("lrb{} = {} broadcast(lr), dimensions={{}}", i, mat);
    b.Line("step{} = {} multiply(gw{}, lrb{})", i, mat, i, i);
    if (i > 1) {
      // The weight is donated to nw{i}: every read of w{i} comes first (what
      // XLA's copy insertion ensures with a control edge).
      b.Line("da{} = {} dot({}, w{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}",
             i - 1, act, dz, i);
      b.Line("nw{} = {} subtract(w{}, step{}), control-predecessors={{da{}}}", i, mat, i, i, i - 1);
    } else {
      b.Line("nw{} = {} subtract(w{}, step{})", i, mat, i, i);
    }
    if (i > 1) {
      b.Line("asq{} = {} multiply(a{}, a{})", i - 1, act, i - 1, i - 1);
      b.Line("ones{} = {} broadcast(one), dimensions={{}}", i - 1, act);
      b.Line("der{} = {} subtract(ones{}, asq{})", i - 1, act, i - 1, i - 1);
      b.Line("dz{} = {} multiply(da{}, der{})", i - 1, act, i - 1, i - 1);
      dz = fmt::format("dz{}", i - 1);
    }
  }
  std::string shape = "(f32[]";
  for (int i = 1; i <= layers; ++i) {
    outputs.push_back(fmt::format("nw{}", i));
    shape += ", " + mat;
  }
  shape += ")";
  std::string root_operands = outputs[0];
  for (size_t i = 1; i < outputs.size(); ++i) root_operands += ", " + outputs[i];
  b.Line("ROOT out = {} tuple({})", shape, root_operands);
  // The weights are donated: each updated weight may reuse its input buffer,
  // as training steps compiled by JAX / TF do.
  std::string aliases;
  for (int i = 1; i <= layers; ++i) {
    aliases += fmt::format("{}{{{}}}: ({}, {{}}, may-alias)", i == 1 ? "" : ", ", i, i + 1);
  }
  return fmt::format(
      "HloModule mlp_train_step_l{}_b{}_w{}, input_output_alias={{ {} }}\n{}\nENTRY main "
      "{{\n{}}}\n",
      layers, batch, width, aliases, kReducers, b.text);
}

std::string AttentionBlocks(int layers, int heads, int seq, int dim) {
  const int head_dim = dim / heads;
  const std::string x_shape = fmt::format("f32[{},{}]", seq, dim);
  const std::string h_shape = fmt::format("f32[{},{}]", seq, head_dim);
  const std::string w_shape = fmt::format("f32[{},{}]", dim, head_dim);
  const std::string s_shape = fmt::format("f32[{},{}]", seq, seq);
  const std::string v_shape = fmt::format("f32[{}]", seq);
  Body b;
  int parameter = 0;
  b.Line("x0 = {} parameter({})", x_shape, parameter++);
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < heads; ++h) {
      for (const char* w : {"wq", "wk", "wv"}) {
        b.Line("{}_{}_{} = {} parameter({})", w, l, h, w_shape, parameter++);
      }
    }
    b.Line("wo_{} = f32[{},{}] parameter({})", l, dim, dim, parameter++);
  }
  b.Line("ninf = f32[] constant(-inf)");
  b.Line("zero = f32[] constant(0)");
  for (int l = 0; l < layers; ++l) {
    std::string cat_operands;
    for (int h = 0; h < heads; ++h) {
      const std::string s = fmt::format("{}_{}", l, h);
      for (const char* p : {"q", "k", "v"}) {
        b.Line("{}{} = {} dot(x{}, w{}{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}",
               p, s, h_shape, l, p, "_" + s);
      }
      b.Line("s{} = {} dot(q{}, k{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}", s,
             s_shape, s, s);
      b.Line("m{} = {} reduce(s{}, ninf), dimensions={{1}}, to_apply=max_f32", s, v_shape, s);
      b.Line("mb{} = {} broadcast(m{}), dimensions={{0}}", s, s_shape, s);
      b.Line("c{} = {} subtract(s{}, mb{})", s, s_shape, s, s);
      b.Line("e{} = {} exponential(c{})", s, s_shape, s);
      b.Line("l{} = {} reduce(e{}, zero), dimensions={{1}}, to_apply=add_f32", s, v_shape, s);
      b.Line("lb{} = {} broadcast(l{}), dimensions={{0}}", s, s_shape, s);
      b.Line("p{} = {} divide(e{}, lb{})", s, s_shape, s, s);
      b.Line("o{} = {} dot(p{}, v{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}", s,
             h_shape, s, s);
      cat_operands += (h == 0 ? "" : ", ") + fmt::format("o{}", s);
    }
    b.Line("cat{} = {} concatenate({}), dimensions={{1}}", l, x_shape, cat_operands);
    b.Line("proj{} = {} dot(cat{}, wo_{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}",
           l, x_shape, l, l);
    b.Line("{}x{} = {} add(x{}, proj{})", l + 1 == layers ? "ROOT " : "", l + 1, x_shape, l, l);
  }
  return fmt::format("HloModule attention_l{}_h{}_s{}_d{}\n{}\nENTRY main {{\n{}}}\n", layers,
                     heads, seq, dim, kReducers, b.text);
}

std::string WideFanOut(int branches, int seed) {
  // Two kinds of branch: "peaky" ones expand to one very large temporary and
  // return a tiny result; "chain" ones pass through many medium temporaries
  // (a larger cumulative size) and return a larger result that stays live
  // until the final concatenation. Running the peaky ones first is best;
  // XLA's heuristics prefer the chains (smaller first buffers, larger subtree
  // sizes) or follow the text, which interleaves the two kinds.
  std::mt19937 rng(seed);
  const int n = 64;
  Body b;
  b.Line("x = f32[{}] parameter(0)", n);
  b.Line("zero = f32[] constant(0)");
  std::vector<std::string> results;
  int total_columns = 0;
  for (int i = 0; i < branches; ++i) {
    if (i % 2 == 0) {
      const int width = 160 + 32 * static_cast<int>(rng() % 3);
      const int result = 64 + 32 * static_cast<int>(rng() % 4);
      const int steps = 8;
      b.Line("c{}_0 = f32[{},{}] broadcast(x), dimensions={{0}}", i, n, width);
      for (int k = 1; k <= steps; ++k) {
        b.Line("t{}_{} = f32[{},{}] {}(c{}_{})", i, k, n, width, k % 2 ? "tanh" : "exponential", i,
               k - 1);
        b.Line("d{}_{} = f32[{},{}] reverse(t{}_{}), dimensions={{1}}", i, k, n, width, i, k);
        b.Line("c{}_{} = f32[{},{}] add(t{}_{}, d{}_{})", i, k, n, width, i, k, i, k);
      }
      b.Line("res{} = f32[{},{}] slice(c{}_{}), slice={{[0:{}], [0:{}]}}", i, n, result, i, steps,
             n, result);
      total_columns += result;
    } else {
      const int width = 512 * (2 + static_cast<int>(rng() % 3));
      b.Line("p{}_0 = f32[{},{}] broadcast(x), dimensions={{0}}", i, n, width);
      b.Line("p{}_1 = f32[{},{}] reverse(p{}_0), dimensions={{1}}", i, n, width, i);
      b.Line("p{}_2 = f32[{},{}] multiply(p{}_0, p{}_1)", i, n, width, i, i);
      b.Line("p{}_3 = f32[{}] reduce(p{}_2, zero), dimensions={{1}}, to_apply=add_f32", i, n, i);
      b.Line("res{} = f32[{},1] reshape(p{}_3)", i, n, i);
      total_columns += 1;
    }
    results.push_back(fmt::format("res{}", i));
  }
  std::string operands;
  for (size_t i = 0; i < results.size(); ++i) operands += (i ? ", " : "") + results[i];
  b.Line("ROOT out = f32[{},{}] concatenate({}), dimensions={{1}}", n, total_columns, operands);
  return fmt::format("HloModule wide_fan_out_{}_{}\n{}\nENTRY main {{\n{}}}\n", branches, seed,
                     kReducers, b.text);
}

std::string WhileLoop(int branches, int width) {
  const std::string vec = fmt::format("f32[{}]", width);
  const std::string state = fmt::format("(s32[], {})", vec);
  std::string body;
  {
    Body b;
    b.Line("p = {} parameter(0)", state);
    b.Line("i = s32[] get-tuple-element(p), index=0");
    b.Line("v = {} get-tuple-element(p), index=1", vec);
    b.Line("one = s32[] constant(1)");
    b.Line("next = s32[] add(i, one)");
    b.Line("zero = f32[] constant(0)");
    std::string acc;
    for (int k = 0; k < branches; ++k) {
      const int m = 4 * (1 + k % 4);
      b.Line("b{} = f32[{},{}] broadcast(v), dimensions={{0}}", k, width, m);
      b.Line("t{} = f32[{},{}] tanh(b{})", k, width, m, k);
      b.Line("u{} = f32[{},{}] reverse(t{}), dimensions={{1}}", k, width, m, k);
      b.Line("w{} = f32[{},{}] multiply(t{}, u{})", k, width, m, k, k);
      b.Line("r{} = {} reduce(w{}, zero), dimensions={{1}}, to_apply=add_f32", k, vec, k);
      if (acc.empty()) {
        acc = fmt::format("r{}", k);
      } else {
        b.Line("s{} = {} add({}, r{})", k, vec, acc, k);
        acc = fmt::format("s{}", k);
      }
    }
    b.Line("ROOT out = {} tuple(next, {})", state, acc);
    body = b.text;
  }
  Body c;
  c.Line("p = {} parameter(0)", state);
  c.Line("i = s32[] get-tuple-element(p), index=0");
  c.Line("n = s32[] constant(8)");
  c.Line("ROOT lt = pred[] compare(i, n), direction=LT");
  Body e;
  e.Line("x = {} parameter(0)", vec);
  e.Line("zero = f32[] constant(0)");
  e.Line("izero = s32[] constant(0)");
  e.Line("big = f32[{},64] broadcast(x), dimensions={{0}}", width);
  e.Line("bigt = f32[{},64] tanh(big)", width);
  e.Line("bigr = f32[{},64] reverse(bigt), dimensions={{1}}", width);
  e.Line("pre = {} reduce(bigr, zero), dimensions={{1}}, to_apply=add_f32", vec);
  e.Line("side = f32[{},32] broadcast(x), dimensions={{0}}", width);
  e.Line("init = {} tuple(izero, pre)", state);
  e.Line("loop = {} while(init), condition=cond, body=body", state);
  e.Line("res = {} get-tuple-element(loop), index=1", vec);
  e.Line("sider = {} reduce(side, zero), dimensions={{1}}, to_apply=add_f32", vec);
  e.Line("ROOT out = {} add(res, sider)", vec);
  return fmt::format(
      "HloModule while_loop_{}_{}\n{}\nbody {{\n{}}}\n\ncond {{\n{}}}\n\nENTRY main {{\n{}}}\n",
      branches, width, kReducers, body, c.text, e.text);
}

}  // namespace hmo::bench
