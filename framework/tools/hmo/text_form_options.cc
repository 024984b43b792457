#include "text_form_options.h"

namespace hmo::cli {

void TextFormOptions::AddTo(ArgumentParser& parser) {
  parser.AddFlag("--long", &long_form,
                 "write XLA's long form (HloModule::ToString(): %names, operand shapes, "
                 "computation signatures) instead of the short form");
  parser.AddFlag("--dump-form", &dump_form,
                 "write the form of XLA's --xla_dump_hlo_as_text files (the long form without "
                 "operand shapes)");
}

HloPrintOptions TextFormOptions::PrintOptions() const {
  if (long_form) return HloPrintOptions::LongForm();
  return dump_form ? HloPrintOptions::DumpForm() : HloPrintOptions::Canonical();
}

}  // namespace hmo::cli
