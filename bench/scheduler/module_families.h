#ifndef HMO_BENCH_SCHEDULER_MODULE_FAMILIES_H_
#define HMO_BENCH_SCHEDULER_MODULE_FAMILIES_H_

// Generated HLO modules for the scheduler benchmark: families where the
// instruction order decides the memory peak. Every module is plain, unfused
// HLO text (what XLA dumps before fusion), with valid shapes.

#include <cstdint>
#include <string>

namespace hmo::bench {

// One step of training an MLP: `layers` tanh layers of `width` units on a
// batch of `batch`, squared-error loss, backward pass and SGD updates; the
// root returns the loss and every updated weight; the weights are donated
// (input_output_alias), as in a compiled training step.
std::string MlpTrainStep(int layers, int batch, int width);

// `layers` self-attention blocks with `heads` heads over `seq` tokens of
// `dim` features (per-head projections, softmax, output projection,
// residual), forward only.
std::string AttentionBlocks(int layers, int heads, int seq, int dim);

// One input fanned out to `branches` independent chains that expand it to
// buffers of different sizes and reduce them again; the small results are
// summed. Branch sizes vary (deterministically from `seed`), so the order in
// which branches run decides the peak.
std::string WideFanOut(int branches, int seed);

// A loop whose body fans out to `branches` temporaries before combining them
// into the carried state, between an entry prologue and epilogue that make
// large temporaries of their own.
std::string WhileLoop(int branches, int width);

}  // namespace hmo::bench

#endif  // HMO_BENCH_SCHEDULER_MODULE_FAMILIES_H_
