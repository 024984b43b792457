#include "hmo/collectives/launch_results.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"

namespace hmo::collectives {
namespace {

// Device d is process d of the launch.
absl::Status DeviceFailed(size_t device, std::string_view step) {
  return absl::AbortedError(fmt::format(
      "device {} (process {} of the MPI launch) failed{}; its error is in its own output", device,
      device, step.empty() ? std::string() : fmt::format(" ({})", step)));
}

// The first process whose first byte (its ok flag) is 0.
absl::Status FirstFailure(const std::vector<std::vector<char>>& gathered, std::string_view step) {
  for (size_t d = 0; d < gathered.size(); ++d) {
    if (gathered[d].empty() || gathered[d][0] == 0) return DeviceFailed(d, step);
  }
  return absl::OkStatus();
}

int64_t LeafBytes(const Shape& shape) {
  int64_t bytes = 0;
  ShapeUtil::ForEachSubshape(shape, [&](const Shape& subshape, const ShapeIndex&) {
    if (subshape.IsArray()) bytes += static_cast<int64_t>(Literal(subshape).raw_data().size());
  });
  return bytes;
}

}  // namespace

absl::Status CheckOneProcessPerDevice(int64_t processes, std::string_view module_name,
                                      int64_t devices) {
  if (processes == devices) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("module '{}' runs on {} devices, one per process of an MPI launch, but this "
                  "launch has {} processes (mpirun -n {})",
                  module_name, devices, processes, devices));
}

absl::Status AgreeAcrossLaunch(MpiCollectives& mpi, const absl::Status& mine,
                               std::string_view step) {
  const char flag = mine.ok() ? 1 : 0;
  HMO_ASSIGN_OR_RETURN(std::vector<std::vector<char>> gathered,
                       mpi.AllGather(absl::Span<const char>(&flag, 1)));
  if (!mine.ok()) return mine;
  return FirstFailure(gathered, step);
}

std::vector<char> SerializeDeviceResult(const absl::StatusOr<Literal>& result,
                                        const Shape& result_shape) {
  std::vector<char> bytes(1 + static_cast<size_t>(LeafBytes(result_shape)), 0);
  if (!result.ok()) return bytes;
  bytes[0] = 1;
  size_t at = 1;
  std::function<void(const Literal&)> append = [&](const Literal& literal) {
    if (literal.shape().IsTuple()) {
      for (const Literal& element : literal.tuple_elements()) append(element);
      return;
    }
    // Bounded by the shape's bytes: the result has result_shape.
    const size_t size = std::min(literal.raw_data().size(), bytes.size() - at);
    std::memcpy(bytes.data() + at, literal.raw_data().data(), size);
    at += size;
  };
  append(*result);
  return bytes;
}

absl::StatusOr<std::vector<Literal>> DeviceResultsFromBytes(
    const std::vector<std::vector<char>>& gathered, const Shape& result_shape) {
  HMO_RETURN_IF_ERROR(FirstFailure(gathered, ""));
  const size_t expected = 1 + static_cast<size_t>(LeafBytes(result_shape));
  std::vector<Literal> out;
  for (size_t d = 0; d < gathered.size(); ++d) {
    const std::vector<char>& from = gathered[d];
    if (from.size() != expected) {
      return absl::InternalError(fmt::format(
          "device {} sent {} bytes of results; its result shape has {}", d, from.size(), expected));
    }
    size_t offset = 1;
    std::function<Literal(const Shape&)> rebuild = [&](const Shape& subshape) -> Literal {
      if (subshape.IsTuple()) {
        std::vector<Literal> elements;
        for (const Shape& element : subshape.tuple_shapes()) elements.push_back(rebuild(element));
        return Literal::MakeTuple(std::move(elements));
      }
      Literal leaf(subshape);
      if (subshape.IsArray()) {
        std::vector<uint8_t>& data = *leaf.mutable_raw_data();
        std::memcpy(data.data(), from.data() + offset, data.size());
        offset += data.size();
      }
      return leaf;
    };
    out.push_back(rebuild(result_shape));
  }
  return out;
}

absl::StatusOr<std::vector<Literal>> GatherDeviceResults(MpiCollectives& mpi,
                                                         const absl::StatusOr<Literal>& mine,
                                                         const Shape& result_shape) {
  // Every process gathers, failed or not, so none waits for a missing peer.
  HMO_ASSIGN_OR_RETURN(std::vector<std::vector<char>> gathered,
                       mpi.AllGather(SerializeDeviceResult(mine, result_shape)));
  if (!mine.ok()) return mine.status();
  return DeviceResultsFromBytes(gathered, result_shape);
}

}  // namespace hmo::collectives
