#ifndef HMO_IR_HLO_PRINTER_H_
#define HMO_IR_HLO_PRINTER_H_

// Printer for XLA's HLO text format, in XLA's current short form: names
// without `%`, operands as bare names, shapes with their layouts, `ROOT`,
// attributes in XLA's order (verbatim attributes at XLA's position for their
// name, keeping their relative text order), computations without signatures,
// callees before callers, the entry marked `ENTRY`.
//
// Guarantee: for any module M parsed from text, ParseHloModule(Print(M))
// yields a module structurally equal to M, and printing that again yields
// the same bytes.

#include <string>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct HloPrintOptions {
  // Print metadata={...} (verbatim attribute).
  bool print_metadata = true;
  // Print backend_config=... (verbatim attribute).
  bool print_backend_config = true;
  // Print every element of constants; when false, arrays with more than 10
  // elements print as {...} (XLA's default; output then loses values).
  bool print_large_constants = true;
  // Print operand shapes (`add(f32[] x, f32[] y)`, XLA's long form).
  bool print_operand_shape = false;
  // Prefix names with '%' (XLA's long form).
  bool print_percent = false;
  // Print `(p: shape, ...) -> shape` after computation names.
  bool print_computation_signature = false;
  // End the module with a blank line, as XLA's HloModule::ToString() does.
  bool end_with_blank_line = false;
  // Spell values as XLA's HloModule::ToString() does: constants in XLA's
  // literal text (LiteralTextStyle::kXla: pred arrays 0/1, "{x}" rows,
  // `/*i0=1*/` index comments, "( a, b )" tuples), and slice strides on
  // every dimension once any of them is not 1 (`[0:4:2], [0:3:1]`). Off,
  // hmo's short form keeps its own spelling (`[0:4:2], [0:3]`).
  bool xla_value_text = false;
  // XLA's async syntax sugar: an async op whose wrapped computation is one
  // instruction applied to its parameters prints as `<op>-start/-update/
  // -done` with that instruction's attributes, and the wrapped computation
  // is left out; async-update/-done print no calls=.
  bool async_syntax_sugar = false;

  static HloPrintOptions Canonical() { return HloPrintOptions(); }
  // XLA's long form: %names, operand shapes, signatures.
  static HloPrintOptions LongForm() {
    HloPrintOptions o = DumpForm();
    o.print_operand_shape = true;
    return o;
  }
  // What XLA writes with --xla_dump_hlo_as_text: the long form without
  // operand shapes.
  static HloPrintOptions DumpForm() {
    HloPrintOptions o;
    o.print_percent = true;
    o.print_computation_signature = true;
    o.end_with_blank_line = true;
    o.xla_value_text = true;
    o.async_syntax_sugar = true;
    return o;
  }
};

// Whole module, ending with a newline.
std::string PrintHloModule(const HloModule& module, const HloPrintOptions& options = {});
// One computation (`[ENTRY ]name {\n  ...\n}` plus `, execution_thread=`),
// without a trailing newline. Instruction order is the schedule's when the
// module is scheduled and the computation has a sequence.
std::string PrintHloComputation(const HloComputation& computation,
                                const HloPrintOptions& options = {});
// One instruction line without indentation or ROOT.
std::string PrintHloInstruction(const HloInstruction& instruction,
                                const HloPrintOptions& options = {});

}  // namespace hmo

#endif  // HMO_IR_HLO_PRINTER_H_
