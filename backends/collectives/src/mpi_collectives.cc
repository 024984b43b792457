#include "hmo/collectives/mpi_collectives.h"

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <string>
#include <thread>

#include "collective_computation.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

#if HMO_HAVE_MPI
// The C API only: the C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace hmo::collectives {
namespace {

// The process count an MPI launcher gave this process (Open MPI, then
// MPICH/PMI); 1 when none started it.
int LaunchedProcessCount() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name); value != nullptr)
      return std::max(1, std::atoi(value));
  }
  return 1;
}

}  // namespace

#if HMO_HAVE_MPI

namespace {

// Finalizes MPI when the process (or the library holding it) ends.
struct MpiSession {
  bool initialized = false;
  ~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Finalize();
  }
};

std::string MpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

}  // namespace

absl::StatusOr<MpiCollectives*> MpiCollectives::FromLaunch() {
  if (LaunchedProcessCount() <= 1) return nullptr;
  static MpiSession session;
  static absl::StatusOr<MpiCollectives*> instance = []() -> absl::StatusOr<MpiCollectives*> {
    int provided = 0;
    if (int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
        code != MPI_SUCCESS) {
      return absl::UnavailableError("MPI_Init_thread failed: " + MpiError(code));
    }
    session.initialized = true;
    if (provided < MPI_THREAD_SERIALIZED) {
      return absl::UnavailableError(
          "the MPI library does not let one thread at a time call it "
          "(MPI_THREAD_SERIALIZED)");
    }
    // Errors come back as codes, not aborts.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int local = rank;
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
      MPI_Comm_rank(node, &local);
      MPI_Comm_free(&node);
    }
    return new MpiCollectives(rank, size, local);  // lives as long as the process
  }();
  return instance;
}

absl::StatusOr<std::vector<std::vector<char>>> MpiCollectives::AllGather(
    absl::Span<const char> bytes) {
  const long long mine = static_cast<long long>(bytes.size());
  std::vector<long long> sizes(static_cast<size_t>(process_count_));
  if (int code =
          MPI_Allgather(&mine, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
      code != MPI_SUCCESS) {
    return absl::UnavailableError("MPI_Allgather: " + MpiError(code));
  }
  if (std::any_of(sizes.begin(), sizes.end(), [&](long long size) { return size != mine; })) {
    return absl::InvalidArgumentError(
        fmt::format("the processes gather different byte counts: {}", fmt::join(sizes, ", ")));
  }
  std::vector<char> all(static_cast<size_t>(mine) * sizes.size());
  if (int code = MPI_Allgather(bytes.data(), static_cast<int>(mine), MPI_BYTE, all.data(),
                               static_cast<int>(mine), MPI_BYTE, MPI_COMM_WORLD);
      code != MPI_SUCCESS) {
    return absl::UnavailableError("MPI_Allgather: " + MpiError(code));
  }
  std::vector<std::vector<char>> out;
  for (size_t p = 0; p < sizes.size(); ++p) {
    out.emplace_back(
        all.begin() + static_cast<std::ptrdiff_t>(p * static_cast<size_t>(mine)),
        all.begin() + static_cast<std::ptrdiff_t>((p + 1) * static_cast<size_t>(mine)));
  }
  return out;
}

absl::Status MpiCollectives::Run(const CollectivePlan& plan, int64_t device,
                                 absl::Span<const void* const> send,
                                 absl::Span<void* const> receive) {
  if (device != process_ || device >= plan.grid.device_count() ||
      send.size() != plan.send_bytes.size() || receive.size() != plan.receive_bytes.size()) {
    return absl::InternalError(
        fmt::format("{}: process {} ran device {} with {} send and {} receive buffers",
                    plan.description, process_, device, send.size(), receive.size()));
  }
  if (WriteDeviceId(plan, device, receive)) return absl::OkStatus();
  const Meeting meeting = MeetingOf(plan, device);
  const std::vector<int64_t>& members = meeting.members;
  const int rank = meeting.rank;
  const int ranks = meeting.ranks();
  // Every device runs every collective of the program in order: the count
  // tags this one alike on every process (MPI keeps a pair's messages of one
  // tag in order).
  const int tag = static_cast<int>(next_tag_++ % 32768);

  // Which members this device sends to and receives from.
  std::vector<int> send_to, receive_from;
  if (plan.kind == CollectiveKind::kCollectivePermute) {
    const PermutePeers& peers = plan.peers[static_cast<size_t>(device)];
    if (peers.target >= 0 && peers.target != device)
      send_to.push_back(static_cast<int>(peers.target));
    if (peers.source >= 0 && peers.source != device)
      receive_from.push_back(static_cast<int>(peers.source));
  } else {
    for (int r = 0; r < ranks; ++r) {
      if (r == rank) continue;
      send_to.push_back(r);
      receive_from.push_back(r);
    }
  }
  std::vector<std::vector<std::vector<char>>> copies(static_cast<size_t>(ranks));
  std::vector<MPI_Request> requests;
  std::vector<int> request_member;  // the member a receive request waits for; -1 for sends
  for (int r : receive_from) {
    copies[static_cast<size_t>(r)].resize(send.size());
    for (size_t i = 0; i < send.size(); ++i) {
      std::vector<char>& copy = copies[static_cast<size_t>(r)][i];
      copy.resize(static_cast<size_t>(plan.send_bytes[i]));
      requests.emplace_back();
      if (int code = MPI_Irecv(copy.data(), static_cast<int>(copy.size()), MPI_BYTE,
                               static_cast<int>(members[static_cast<size_t>(r)]), tag,
                               MPI_COMM_WORLD, &requests.back());
          code != MPI_SUCCESS) {
        return absl::UnavailableError(plan.description + ": MPI_Irecv: " + MpiError(code));
      }
      request_member.push_back(r);
    }
  }
  for (int r : send_to) {
    for (size_t i = 0; i < send.size(); ++i) {
      requests.emplace_back();
      if (int code = MPI_Isend(send[i], static_cast<int>(plan.send_bytes[i]), MPI_BYTE,
                               static_cast<int>(members[static_cast<size_t>(r)]), tag,
                               MPI_COMM_WORLD, &requests.back());
          code != MPI_SUCCESS) {
        return absl::UnavailableError(plan.description + ": MPI_Isend: " + MpiError(code));
      }
      request_member.push_back(-1);
    }
  }
  const absl::Time deadline = absl::Now() + timeout_;
  for (;;) {
    int done = 0;
    if (int code = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                               MPI_STATUSES_IGNORE);
        code != MPI_SUCCESS) {
      return absl::UnavailableError(plan.description + ": MPI_Testall: " + MpiError(code));
    }
    if (done) break;
    if (absl::Now() > deadline) {
      std::vector<int64_t> missing;
      for (size_t k = 0; k < requests.size(); ++k) {
        int finished = 0;
        MPI_Test(&requests[k], &finished, MPI_STATUS_IGNORE);
        const int64_t who =
            request_member[k] >= 0 ? members[static_cast<size_t>(request_member[k])] : -1;
        if (!finished && who >= 0 &&
            std::find(missing.begin(), missing.end(), who) == missing.end()) {
          missing.push_back(who);
        }
      }
      return absl::DeadlineExceededError(fmt::format(
          "{}: device {} waited {} for device(s) {} (processes of the MPI launch) that did not "
          "arrive",
          plan.description, device, absl::FormatDuration(timeout_), fmt::join(missing, ", ")));
    }
    std::this_thread::yield();
  }

  ReceiveTargets targets(plan, send, receive);
  const auto peer = [&](int r, size_t i) -> const char* {
    if (r == rank) return static_cast<const char*>(send[i]);
    const std::vector<std::vector<char>>& buffers = copies[static_cast<size_t>(r)];
    return i < buffers.size() ? buffers[i].data() : nullptr;
  };
  if (absl::Status computed = ComputeReceive(plan, device, rank, ranks, peer, targets.out());
      !computed.ok())
    return computed;
  targets.Finish();
  return absl::OkStatus();
}

#else  // !HMO_HAVE_MPI

absl::StatusOr<MpiCollectives*> MpiCollectives::FromLaunch() {
  if (LaunchedProcessCount() <= 1) return nullptr;
  return absl::UnavailableError(
      "this process was started by an MPI launcher, but hmo was built without MPI (install "
      "libopenmpi-dev and "
      "rebuild)");
}

absl::StatusOr<std::vector<std::vector<char>>> MpiCollectives::AllGather(absl::Span<const char>) {
  return absl::UnavailableError("hmo was built without MPI");
}

absl::Status MpiCollectives::Run(const CollectivePlan&, int64_t, absl::Span<const void* const>,
                                 absl::Span<void* const>) {
  return absl::UnavailableError("hmo was built without MPI");
}

#endif  // HMO_HAVE_MPI

}  // namespace hmo::collectives
