#include "hmo/ir/collective_attributes.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace hmo {
namespace {

// The integers of `text` in order, ignoring every other character.
std::vector<int64_t> Integers(std::string_view text) {
  std::vector<int64_t> values;
  int64_t value = 0;
  bool in_number = false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      value = value * 10 + (c - '0');
      in_number = true;
    } else if (in_number) {
      values.push_back(value);
      value = 0;
      in_number = false;
    }
  }
  if (in_number) values.push_back(value);
  return values;
}

}  // namespace

absl::StatusOr<int64_t> ReplicaGroupSize(std::string_view text) {
  const size_t iota = text.find("<=");
  if (iota != std::string_view::npos) {
    // [groups, size]<=[devices]...: the tile's last dimension is the size.
    const std::vector<int64_t> tile = Integers(text.substr(0, iota));
    if (tile.size() < 2) return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
    return tile.back();
  }
  int64_t largest = 1, current = 0;
  int depth = 0;
  bool in_number = false;
  for (char c : text) {
    if (c == '{') {
      ++depth;
      if (depth == 2) current = 0;
    } else if (c == '}') {
      if (in_number) ++current;
      in_number = false;
      if (depth == 2) largest = std::max(largest, current);
      --depth;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      if (depth != 2) return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
      in_number = true;
    } else if (c == ',') {
      if (in_number) ++current;
      in_number = false;
    }
  }
  if (depth != 0) return absl::InvalidArgumentError("unbalanced replica_groups " + std::string(text));
  return largest;
}

absl::StatusOr<std::vector<std::pair<int, int>>> ParseSourceTargetPairs(std::string_view text) {
  const std::vector<int64_t> values = Integers(text);
  if (values.size() % 2 != 0) return absl::InvalidArgumentError("odd source_target_pairs " + std::string(text));
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < values.size(); i += 2) {
    pairs.emplace_back(static_cast<int>(values[i]), static_cast<int>(values[i + 1]));
  }
  return pairs;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ParseReplicaGroups(std::string_view text) {
  const size_t iota = text.find("<=");
  if (iota != std::string_view::npos) {
    // [groups, size]<=[reshape dims] with an optional T(permutation).
    const std::vector<int64_t> tile = Integers(text.substr(0, iota));
    const std::string_view rest = text.substr(iota + 2);
    const size_t transpose = rest.find('T');
    const std::vector<int64_t> dims = Integers(rest.substr(0, transpose));
    std::vector<int64_t> permutation;
    if (transpose != std::string_view::npos) permutation = Integers(rest.substr(transpose));
    if (permutation.empty()) {
      for (size_t i = 0; i < dims.size(); ++i) permutation.push_back(static_cast<int64_t>(i));
    }
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    std::vector<int64_t> sorted = permutation;
    std::sort(sorted.begin(), sorted.end());
    bool is_permutation = sorted.size() == dims.size();
    for (size_t i = 0; is_permutation && i < sorted.size(); ++i) is_permutation = sorted[i] == static_cast<int64_t>(i);
    if (tile.size() != 2 || dims.empty() || !is_permutation || tile[0] * tile[1] != total) {
      return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
    }
    // Element k of the transposed iota: its index in the transposed array,
    // mapped back to the reshape dimensions, linearized row-major.
    const size_t rank = dims.size();
    std::vector<std::vector<int64_t>> groups(static_cast<size_t>(tile[0]));
    for (int64_t k = 0; k < total; ++k) {
      std::vector<int64_t> original(rank, 0);
      int64_t remainder = k;
      for (size_t i = rank; i-- > 0;) {
        const int64_t extent = dims[static_cast<size_t>(permutation[i])];
        original[static_cast<size_t>(permutation[i])] = remainder % extent;
        remainder /= extent;
      }
      int64_t value = 0;
      for (size_t i = 0; i < rank; ++i) value = value * dims[i] + original[i];
      groups[static_cast<size_t>(k / tile[1])].push_back(value);
    }
    return groups;
  }
  std::vector<std::vector<int64_t>> groups;
  int depth = 0;
  int64_t value = 0;
  bool in_number = false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (depth != 2) return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
      value = value * 10 + (c - '0');
      in_number = true;
      continue;
    }
    if (in_number) groups.back().push_back(value);
    in_number = false;
    value = 0;
    if (c == '{') {
      if (++depth == 2) groups.emplace_back();
      if (depth > 2) return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
    } else if (c == '}') {
      if (--depth < 0) return absl::InvalidArgumentError("unbalanced replica_groups " + std::string(text));
    } else if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError("cannot read replica_groups " + std::string(text));
    }
  }
  if (depth != 0) return absl::InvalidArgumentError("unbalanced replica_groups " + std::string(text));
  return groups;
}

}  // namespace hmo
