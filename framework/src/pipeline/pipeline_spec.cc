#include "hmo/pipeline/pipeline_spec.h"

namespace hmo {

std::string_view VerifyModeName(VerifyMode mode) {
  switch (mode) {
    case VerifyMode::kNever:
      return "never";
    case VerifyMode::kChanged:
      return "changed";
    case VerifyMode::kAlways:
      return "always";
  }
  return "changed";
}

}  // namespace hmo
