// Errors cross the plugin boundary as a status code and a message written
// into a host buffer; exceptions never cross it.

#include "hmo/plugin/abi_status.h"

#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/plugin/plugin_registrars.h"

namespace hmo {
namespace {

TEST(AbiStatusTest, SetMessageTruncatesAndTerminates) {
  char buffer[6];
  EXPECT_EQ(hmoSetMessage(kHmoInternal, "overflowing", buffer, sizeof(buffer)), kHmoInternal);
  EXPECT_STREQ(buffer, "overf");
  EXPECT_EQ(hmoSetMessage(kHmoOk, nullptr, buffer, sizeof(buffer)), kHmoOk);
  EXPECT_STREQ(buffer, "");
}

TEST(AbiStatusTest, CodesRoundTripWithTheirMessages) {
  char buffer[HMO_MESSAGE_CAPACITY];
  const absl::Status original = absl::NotFoundError("no such strategy");
  const HmoStatusCode code = StatusToAbi(original, buffer, sizeof(buffer));
  EXPECT_EQ(code, kHmoNotFound);
  EXPECT_EQ(StatusFromAbi(code, buffer), original);
  EXPECT_TRUE(StatusFromAbi(kHmoOk, "ignored").ok());
  EXPECT_EQ(StatusFromAbi(9999, "odd").code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(StatusFromAbi(9999, "odd").message(), "odd");
}

TEST(AbiStatusTest, ExceptionsBecomeInternalErrors) {
  char buffer[HMO_MESSAGE_CAPACITY];
  const HmoStatusCode code = CallReturningAbiStatus(
      []() -> absl::Status { throw std::runtime_error("boom"); }, buffer, sizeof(buffer));
  EXPECT_EQ(code, kHmoInternal);
  EXPECT_STREQ(buffer, "boom");
}

absl::Status RegisterNothingAndFail(PassRegistrar&) {
  return absl::FailedPreconditionError("not today");
}

TEST(AbiStatusTest, RegistrationCallbackAdaptsACxxFunction) {
  PassRegistry registry;
  PassRegistrar registrar(registry, "p");
  HmoRegisterPassesFn callback = RegistrationCallback<&RegisterNothingAndFail>;
  char buffer[HMO_MESSAGE_CAPACITY];
  EXPECT_EQ(callback(registrar.handle(), buffer, sizeof(buffer)), kHmoFailedPrecondition);
  EXPECT_STREQ(buffer, "not today");
}

TEST(AbiStatusTest, AMessageWithoutItsNulIsReadWithinItsBuffer) {
  // A plugin that fills the whole buffer: the host reads exactly it, not the
  // bytes after it.
  const char filled[12] = {'b', 'u', 'f', 'f', 'e', 'r', ' ', 'f', 'u', 'l', 'l', '!'};
  const char after[4] = {'x', 'x', 'x', '\0'};
  (void)after;
  EXPECT_EQ(AbiMessage(filled, sizeof(filled)), "buffer full!");
  const char terminated[8] = "short";
  EXPECT_EQ(AbiMessage(terminated, sizeof(terminated)), "short");
  EXPECT_EQ(AbiMessage(nullptr, 16), "");
}

}  // namespace
}  // namespace hmo
