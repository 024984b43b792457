#include "hmo/ir/collective_attributes.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <charconv>

#include "fmt/format.h"
#include "hmo/ir/hlo_instruction.h"

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

// The arguments formatted one after the other (absl::StrCat takes
// absl::string_view, which is not std::string_view in every Abseil build).
template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  ((out += fmt::format("{}", args)), ...);
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// The non-blank items of `text` between commas, trimmed.
std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    if (std::string_view item = Trim(text.substr(start, end - start)); !item.empty())
      items.push_back(item);
    start = end + 1;
  }
  return items;
}

bool ParseInt(std::string_view text, int64_t* value) {
  text = Trim(text);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

// "mesh['a'=2,'b'=2, device_ids=(...)]{'b'}" (collective_attributes.h).
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseMeshReplicaGroups(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(Cat("cannot read replica_groups ", text, ": ", why));
  };
  const size_t close = text.find(']');
  if (close == std::string_view::npos) return bad("no ']'");
  std::string_view inside = text.substr(5, close - 5);
  std::vector<int64_t> device_ids;
  const size_t ids = inside.find("device_ids=(");
  if (ids != std::string_view::npos) {
    const size_t end = inside.find(')', ids);
    if (end == std::string_view::npos) return bad("no ')' after device_ids");
    device_ids = Integers(inside.substr(ids, end - ids));
    inside = inside.substr(0, ids);
  }
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  for (std::string_view item : SplitCommas(inside)) {
    item = Trim(item);
    const size_t eq = item.find('=');
    int64_t size = 0;
    if (eq == std::string_view::npos || !ParseInt(item.substr(eq + 1), &size) || size < 1) {
      return bad(Cat("axis '", item, "'"));
    }
    names.emplace_back(Trim(item.substr(0, eq)));
    sizes.push_back(size);
  }
  int64_t positions = 1;
  for (int64_t size : sizes) positions *= size;
  if (device_ids.empty()) {
    for (int64_t d = 0; d < positions; ++d) device_ids.push_back(d);
  }
  if (static_cast<int64_t>(device_ids.size()) != positions)
    return bad("device_ids does not list one id per position");
  std::string_view braces = Trim(text.substr(close + 1));
  if (braces.size() < 2 || braces.front() != '{' || braces.back() != '}') return bad("no {axes}");
  std::vector<size_t> grouped;
  for (std::string_view name : SplitCommas(braces.substr(1, braces.size() - 2))) {
    name = Trim(name);
    if (name.find(':') != std::string_view::npos) {
      return absl::UnimplementedError(
          Cat("replica_groups ", text, ": sub-axis ", name, " is not supported"));
    }
    size_t axis = std::find(names.begin(), names.end(), name) - names.begin();
    int64_t index = 0;
    if (axis == names.size() && name.size() > 2 &&
        ParseInt(name.substr(1, name.size() - 2), &index) && index >= 0 &&
        index < static_cast<int64_t>(names.size())) {
      axis = static_cast<size_t>(index);
    }
    if (axis == names.size()) return bad(Cat(name, " is not an axis of the mesh"));
    if (std::find(grouped.begin(), grouped.end(), axis) != grouped.end())
      return bad(Cat(name, " twice"));
    grouped.push_back(axis);
  }
  std::vector<size_t> outer;
  for (size_t a = 0; a < names.size(); ++a) {
    if (std::find(grouped.begin(), grouped.end(), a) == grouped.end()) outer.push_back(a);
  }
  // Visits every coordinate of `axes` row-major (the first axis slowest).
  const auto for_each = [&](const std::vector<size_t>& axes, std::vector<int64_t>& coordinate,
                            const auto& visit) {
    int64_t count = 1;
    for (size_t a : axes) count *= sizes[a];
    for (int64_t k = 0; k < count; ++k) {
      int64_t remainder = k;
      for (size_t i = axes.size(); i-- > 0;) {
        coordinate[axes[i]] = remainder % sizes[axes[i]];
        remainder /= sizes[axes[i]];
      }
      visit();
    }
  };
  std::vector<std::vector<int64_t>> groups;
  std::vector<int64_t> coordinate(names.size(), 0);
  for_each(outer, coordinate, [&] {
    groups.emplace_back();
    for_each(grouped, coordinate, [&] {
      int64_t position = 0;
      for (size_t a = 0; a < names.size(); ++a) position = position * sizes[a] + coordinate[a];
      groups.back().push_back(device_ids[static_cast<size_t>(position)]);
    });
  });
  return groups;
}

}  // namespace

absl::StatusOr<int64_t> ReplicaGroupSize(std::string_view text) {
  if (Trim(text).substr(0, 5) == "mesh[") {
    absl::StatusOr<std::vector<std::vector<int64_t>>> groups = ParseMeshReplicaGroups(Trim(text));
    if (!groups.ok()) return groups.status();
    int64_t largest = 1;
    for (const std::vector<int64_t>& group : *groups)
      largest = std::max(largest, static_cast<int64_t>(group.size()));
    return largest;
  }
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
  if (Trim(text).substr(0, 5) == "mesh[") {
    return ParseMeshReplicaGroups(Trim(text));
  }
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

absl::StatusOr<CollectiveGroupMode> GetCollectiveGroupMode(const HloInstruction& instruction) {
  const bool has_channel = instruction.channel_id().has_value();
  // all-to-all, collective-permute and collective-broadcast have no
  // use_global_device_ids: their channel means partitions.
  bool takes_global_ids = false;
  switch (instruction.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
      takes_global_ids = true;
      break;
    default:
      break;
  }
  const std::optional<std::string_view> global =
      instruction.GetRawAttribute("use_global_device_ids");
  const bool use_global = global.has_value() && Trim(*global) == "true";
  if (!has_channel) {
    if (use_global) {
      return absl::InvalidArgumentError(
          Cat(instruction.name(), ": use_global_device_ids=true needs a channel_id"));
    }
    return CollectiveGroupMode::kCrossReplica;
  }
  if (!takes_global_ids) return CollectiveGroupMode::kCrossPartition;
  return use_global ? CollectiveGroupMode::kFlattenedId
                    : CollectiveGroupMode::kCrossReplicaAndPartition;
}

namespace {

absl::Status GroupError(const HloInstruction& instruction, std::string_view text,
                        std::string_view why) {
  return absl::InvalidArgumentError(Cat(instruction.name(), ": replica_groups=", text, ": ", why));
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> CollectiveParticipants(const HloInstruction& instruction,
                                                            const DeviceGrid& grid,
                                                            int64_t device) {
  if (device < 0 || device >= grid.device_count()) {
    return absl::InvalidArgumentError(
        Cat("device ", device, " is past the ", grid.device_count(), " devices"));
  }
  absl::StatusOr<CollectiveGroupMode> mode = GetCollectiveGroupMode(instruction);
  if (!mode.ok()) return mode.status();
  const int64_t replica = grid.replica(device);
  const int64_t partition = grid.partition(device);
  // What the groups' ids range over, and this device's id among them.
  int64_t id_count = grid.replica_count;
  int64_t my_id = replica;
  if (*mode == CollectiveGroupMode::kCrossPartition) {
    id_count = grid.partition_count;
    my_id = partition;
  } else if (*mode == CollectiveGroupMode::kFlattenedId) {
    id_count = grid.device_count();
    my_id = device;
  }
  // What the ids name, for messages.
  const std::string_view what = *mode == CollectiveGroupMode::kFlattenedId      ? "device"
                                : *mode == CollectiveGroupMode::kCrossPartition ? "partition"
                                                                                : "replica";
  const std::optional<std::string_view> text = instruction.GetRawAttribute("replica_groups");
  std::vector<std::vector<int64_t>> groups;
  if (text.has_value()) {
    absl::StatusOr<std::vector<std::vector<int64_t>>> parsed = ParseReplicaGroups(*text);
    if (!parsed.ok()) return parsed.status();
    groups = *std::move(parsed);
  }
  std::vector<int64_t> group;
  if (groups.empty()) {
    for (int64_t id = 0; id < id_count; ++id) group.push_back(id);
  } else {
    std::vector<bool> seen(static_cast<size_t>(id_count), false);
    for (const std::vector<int64_t>& candidate : groups) {
      for (int64_t id : candidate) {
        if (id < 0 || id >= id_count) {
          return GroupError(instruction, *text,
                            Cat("names ", id, "; there are ", id_count, " ", what, "s"));
        }
        if (seen[static_cast<size_t>(id)])
          return GroupError(instruction, *text, Cat("lists ", id, " twice"));
        seen[static_cast<size_t>(id)] = true;
        if (id == my_id) group = candidate;
      }
    }
    if (group.empty())
      return GroupError(instruction, *text, Cat(what, " ", my_id, " is in no group"));
  }
  std::vector<int64_t> devices;
  for (int64_t id : group) {
    switch (*mode) {
      case CollectiveGroupMode::kCrossReplica:
        devices.push_back(id * grid.partition_count + partition);
        break;
      case CollectiveGroupMode::kCrossPartition:
        devices.push_back(replica * grid.partition_count + id);
        break;
      case CollectiveGroupMode::kCrossReplicaAndPartition:
        for (int64_t p = 0; p < grid.partition_count; ++p)
          devices.push_back(id * grid.partition_count + p);
        break;
      case CollectiveGroupMode::kFlattenedId:
        devices.push_back(id);
        break;
    }
  }
  return devices;
}

absl::StatusOr<PermutePeers> CollectivePermutePeers(const HloInstruction& instruction,
                                                    const DeviceGrid& grid, int64_t device) {
  if (device < 0 || device >= grid.device_count()) {
    return absl::InvalidArgumentError(
        Cat("device ", device, " is past the ", grid.device_count(), " devices"));
  }
  const bool partitions = instruction.channel_id().has_value();
  const int64_t id_count = partitions ? grid.partition_count : grid.replica_count;
  const int64_t my_id = partitions ? grid.partition(device) : grid.replica(device);
  // The device of id `id` beside this one (same replica, or same partition).
  const auto device_of = [&](int64_t id) {
    return partitions ? grid.replica(device) * grid.partition_count + id
                      : id * grid.partition_count + grid.partition(device);
  };
  std::vector<std::pair<int, int>> pairs;
  if (const std::optional<std::string_view> text =
          instruction.GetRawAttribute("source_target_pairs")) {
    absl::StatusOr<std::vector<std::pair<int, int>>> parsed = ParseSourceTargetPairs(*text);
    if (!parsed.ok()) return parsed.status();
    pairs = *std::move(parsed);
  }
  std::vector<bool> is_source(static_cast<size_t>(id_count), false),
      is_target(static_cast<size_t>(id_count), false);
  PermutePeers peers;
  for (const auto& [source, target] : pairs) {
    if (source < 0 || source >= id_count || target < 0 || target >= id_count) {
      return absl::InvalidArgumentError(Cat(instruction.name(), ": the pair {", source, ",", target,
                                            "} names an id past the ", id_count, " ",
                                            partitions ? "partitions" : "replicas"));
    }
    if (is_source[static_cast<size_t>(source)] || is_target[static_cast<size_t>(target)]) {
      return absl::InvalidArgumentError(
          Cat(instruction.name(), ": ", is_source[static_cast<size_t>(source)] ? source : target,
              " is a source or a target of more than one pair"));
    }
    is_source[static_cast<size_t>(source)] = true;
    is_target[static_cast<size_t>(target)] = true;
    if (target == my_id) peers.source = device_of(source);
    if (source == my_id) peers.target = device_of(target);
  }
  return peers;
}

}  // namespace hmo
