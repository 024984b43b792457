#ifndef HMO_TOOLS_HMO_TEXT_FORM_OPTIONS_H_
#define HMO_TOOLS_HMO_TEXT_FORM_OPTIONS_H_

// `--long` / `--dump-form`: which HLO text form a command writes. The default
// is hmo's canonical short form; the long form is XLA's HloModule::ToString()
// (`%` names, operand shapes, computation signatures); the dump form is what
// XLA's --xla_dump_hlo_as_text writes (the long form without operand shapes).

#include "argument_parser.h"
#include "hmo/ir/hlo_printer.h"

namespace hmo::cli {

struct TextFormOptions {
  bool long_form = false;
  bool dump_form = false;

  void AddTo(ArgumentParser& parser);
  HloPrintOptions PrintOptions() const;
};

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_TEXT_FORM_OPTIONS_H_
