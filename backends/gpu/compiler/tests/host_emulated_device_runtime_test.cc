// The host-emulated device's stream semantics: the compute stream is eager,
// the copy stream runs its copies only when an event recorded after them is
// waited for (or at Synchronize), and pageable sources are staged.

#include <cstring>
#include <memory>
#include <vector>

#include "gpu/compiler/gpu_module_preparation.h"
#include "gpu/compiler/host_emulated_device_runtime.h"
#include "gpu/compiler/host_kernel_library.h"
#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::gpu {
namespace {

std::unique_ptr<GpuDeviceRuntime> MakeRuntime() {
  auto module = ParseHloModule(R"(
HloModule negate, is_scheduled=true
ENTRY main {
  x = f32[100] parameter(0)
  ROOT n = f32[100] negate(x)
}
)");
  EXPECT_TRUE(module.ok()) << module.status();
  auto prepared = PrepareGpuModule(**module);
  EXPECT_TRUE(prepared.ok()) << prepared.status();
  auto library = HostKernelLibrary::Compile(*prepared->module, *prepared->assignment, /*opt_level=*/1);
  EXPECT_TRUE(library.ok()) << library.status();
  auto runtime = CreateHostEmulatedDeviceRuntime(std::move(*library));
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return std::move(*runtime);
}

std::vector<float> Read(const char* address, int n) {
  std::vector<float> values(n);
  std::memcpy(values.data(), address, n * sizeof(float));
  return values;
}

TEST(HostEmulatedDeviceRuntimeTest, CopyStreamRunsOnlyWhenComputeWaitsForIt) {
  std::unique_ptr<GpuDeviceRuntime> runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->name(), "host-emulation");
  auto a = runtime->AllocateDevice(16);
  auto b = runtime->AllocatePinnedHost(16);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*a) % 256, 0u);
  EXPECT_EQ(runtime->DeviceBytesInUse(), 16);
  const std::vector<float> ones = {1, 1, 1, 1};
  const std::vector<float> zeros = {0, 0, 0, 0};
  ASSERT_TRUE(runtime->CopyAsync(GpuStream::kCompute, *a, ones.data(), 16).ok());
  ASSERT_TRUE(runtime->CopyAsync(GpuStream::kCompute, *b, zeros.data(), 16).ok());
  EXPECT_EQ(Read(*a, 4), ones);  // compute: eager

  ASSERT_TRUE(runtime->CopyAsync(GpuStream::kCopy, *b, *a, 16).ok());
  auto done = runtime->CreateEvent(false);
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(runtime->RecordEvent(*done, GpuStream::kCopy).ok());
  EXPECT_EQ(Read(*b, 4), zeros) << "the copy stream ran before anyone waited for it";
  // Compute overwrites the source before waiting: the late copy moves the
  // new bytes (what a real device may do too).
  const std::vector<float> twos = {2, 2, 2, 2};
  ASSERT_TRUE(runtime->CopyAsync(GpuStream::kCompute, *a, twos.data(), 16).ok());
  ASSERT_TRUE(runtime->WaitEvent(GpuStream::kCompute, *done).ok());
  EXPECT_EQ(Read(*b, 4), twos);
}

TEST(HostEmulatedDeviceRuntimeTest, SynchronizeRunsEveryCopyAndPageableSourcesAreStaged) {
  std::unique_ptr<GpuDeviceRuntime> runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  auto a = runtime->AllocateDevice(16);
  ASSERT_TRUE(a.ok());
  std::vector<float> pageable = {3, 4, 5, 6};
  ASSERT_TRUE(runtime->CopyAsync(GpuStream::kCopy, *a, pageable.data(), 16).ok());
  pageable.assign(4, -1.0f);  // the caller may reuse it once the call returned
  ASSERT_TRUE(runtime->Synchronize(GpuStream::kCopy).ok());
  EXPECT_EQ(Read(*a, 4), (std::vector<float>{3, 4, 5, 6}));
}

TEST(HostEmulatedDeviceRuntimeTest, TimingEventsMeasureWhenTheirStreamReachesThem) {
  std::unique_ptr<GpuDeviceRuntime> runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  auto start = runtime->CreateEvent(true);
  auto copy_end = runtime->CreateEvent(true);
  auto compute_end = runtime->CreateEvent(true);
  ASSERT_TRUE(start.ok() && copy_end.ok() && compute_end.ok());
  ASSERT_TRUE(runtime->RecordEvent(*start, GpuStream::kCompute).ok());
  ASSERT_TRUE(runtime->RecordEvent(*copy_end, GpuStream::kCopy).ok());
  EXPECT_FALSE(runtime->ElapsedSeconds(*start, *copy_end).ok()) << "the copy stream has not reached it";
  ASSERT_TRUE(runtime->RecordEvent(*compute_end, GpuStream::kCompute).ok());
  ASSERT_TRUE(runtime->Synchronize(GpuStream::kCopy).ok());
  auto copy_seconds = runtime->ElapsedSeconds(*start, *copy_end);
  auto compute_seconds = runtime->ElapsedSeconds(*start, *compute_end);
  ASSERT_TRUE(copy_seconds.ok() && compute_seconds.ok());
  EXPECT_GE(*copy_seconds, *compute_seconds);  // the lazy copy stream got there last
}

TEST(HostEmulatedDeviceRuntimeTest, KernelsRunOverTheWholeIterationSpace) {
  auto module = ParseHloModule(R"(
HloModule negate, is_scheduled=true
ENTRY main {
  x = f32[100] parameter(0)
  ROOT n = f32[100] negate(x)
}
)");
  ASSERT_TRUE(module.ok());
  auto prepared = PrepareGpuModule(**module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  auto library = HostKernelLibrary::Compile(*prepared->module, *prepared->assignment, 1);
  ASSERT_TRUE(library.ok()) << library.status();
  ASSERT_EQ((*library)->kernel_count(), 1);
  // Table: one entry per allocation; point parameter and output at buffers.
  const BufferAssignment& assignment = *prepared->assignment;
  const HloComputation* entry = prepared->module->entry_computation();
  std::vector<float> x(100), out(100, 0);
  for (int i = 0; i < 100; ++i) x[i] = static_cast<float>(i);
  std::vector<char*> table(assignment.Allocations().size(), nullptr);
  const auto x_slice = *assignment.GetAllSlices(entry->parameter_instruction(0), {}).begin();
  const auto out_slice = *assignment.GetAllSlices(entry->root_instruction(), {}).begin();
  ASSERT_NE(x_slice.index, out_slice.index);
  table[x_slice.index] = reinterpret_cast<char*>(x.data()) - x_slice.offset;
  table[out_slice.index] = reinterpret_cast<char*>(out.data()) - out_slice.offset;
  // Far more elements than the emulated grid has threads: the grid-stride
  // loop must still cover all of them, for any launch.
  for (const LaunchDimensions launch : {LaunchDimensions{128, 1}, LaunchDimensions{32, 4}, LaunchDimensions{1, 1}}) {
    std::fill(out.begin(), out.end(), 0.0f);
    (*library)->Run(0, launch, table.data());
    for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], -static_cast<float>(i)) << i;
  }
}

}  // namespace
}  // namespace hmo::gpu
