#include "hmo/pass/kebab_case.h"

namespace hmo {

bool IsKebabCase(std::string_view name) {
  if (name.empty() || !(name.front() >= 'a' && name.front() <= 'z')) return false;
  if (name.back() == '-') return false;
  char previous = '\0';
  for (char c : name) {
    const bool word_char = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!word_char && c != '-') return false;
    if (c == '-' && previous == '-') return false;
    previous = c;
  }
  return true;
}

}  // namespace hmo
