#include "hmo/ir/frontend_attributes.h"
#include "str_cat.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace hmo {

using ir_internal::StrCat;
using ir_internal::StrAppend;

std::optional<std::string_view> FrontendAttributes::Get(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.first == key) return std::string_view(e.second);
  }
  return std::nullopt;
}

void FrontendAttributes::Set(std::string_view key, std::string_view value) {
  for (Entry& e : entries_) {
    if (e.first == key) {
      e.second = std::string(value);
      return;
    }
  }
  entries_.emplace_back(std::string(key), std::string(value));
}

bool FrontendAttributes::Erase(std::string_view key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

namespace {
bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return !(s[0] >= '0' && s[0] <= '9') && s[0] != '-';
}
}  // namespace

bool IsAttributeDictionaryText(std::string_view value) {
  if (value.size() < 2 || value.front() != '{' || value.back() != '}') return false;
  int depth = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '"') {
      for (++i; i < value.size() && value[i] != '"'; ++i) {
        if (value[i] == '\\') ++i;
      }
      if (i >= value.size()) return false;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      // The outer brace closes only at the very end.
      if (--depth == 0 && i + 1 != value.size()) return false;
    }
  }
  return depth == 0;
}

std::string FrontendAttributes::ToString() const {
  // XLA keeps these in a map and prints them sorted by key.
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries_) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Entry* a, const Entry* b) { return a->first < b->first; });
  std::string out = "{";
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0) out += ",";
    const Entry& e = *sorted[i];
    if (IsIdentifier(e.first)) {
      out += e.first;
    } else {
      StrAppend(&out, "\"", absl::CEscape(absl::string_view(e.first.data(), e.first.size())), "\"");
    }
    if (IsAttributeDictionaryText(e.second)) {
      StrAppend(&out, "=", e.second);  // composite.attributes={n = 1 : i32}
    } else {
      StrAppend(&out, "=\"", absl::CEscape(absl::string_view(e.second.data(), e.second.size())), "\"");
    }
  }
  out += "}";
  return out;
}

}  // namespace hmo
