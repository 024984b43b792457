#ifndef HMO_IR_FRONTEND_ATTRIBUTES_H_
#define HMO_IR_FRONTEND_ATTRIBUTES_H_

// `frontend_attributes={key="value", ...}` of instructions and modules: a
// small string map. It keeps insertion order; it prints sorted by key, as XLA
// does (XLA holds them in a proto map). A value written as a braced
// dictionary (`composite.attributes={n = 1 : i32}`) is kept as that text and
// printed without quotes.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hmo {

class FrontendAttributes {
 public:
  using Entry = std::pair<std::string, std::string>;

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }

  // Value of `key`, or nullopt.
  std::optional<std::string_view> Get(std::string_view key) const;
  bool Contains(std::string_view key) const { return Get(key).has_value(); }
  // Replaces the value of an existing key in place, else appends.
  void Set(std::string_view key, std::string_view value);
  // Returns whether the key was present.
  bool Erase(std::string_view key);
  void Clear() { entries_.clear(); }

  // `{k="v",k2="v2"}` sorted by key, values C-escaped (dictionary values
  // verbatim); keys are printed bare when they are identifiers, else quoted.
  std::string ToString() const;

  bool operator==(const FrontendAttributes&) const = default;

 private:
  std::vector<Entry> entries_;
};

// Whether `value` is one balanced `{...}` (strings skipped): the form XLA
// prints verbatim instead of quoting.
bool IsAttributeDictionaryText(std::string_view value);

}  // namespace hmo

#endif  // HMO_IR_FRONTEND_ATTRIBUTES_H_
