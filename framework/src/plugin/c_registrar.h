#ifndef HMO_SRC_PLUGIN_C_REGISTRAR_H_
#define HMO_SRC_PLUGIN_C_REGISTRAR_H_

// The host side of the C tier's registrar structs (HmoStrategyRegistrar,
// HmoCPassRegistrar): both are {struct_size, register function, host_data},
// and both record, as the C++ registrars do (plugin_registrars.h), the names
// registered and the first error even when the plugin ignores it.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "hmo/plugin/abi_status.h"

namespace hmo {

// `Handle` is the C registrar struct handed to the plugin, `Item` what its
// register function receives (a struct with a `name`); `kind` names an item
// in messages ("scheduler strategy", "C pass").
template <typename Handle, typename Item>
class CRegistrar {
 public:
  using AddFn = std::function<absl::Status(const Item&)>;

  CRegistrar(AddFn add, std::string plugin, const char* kind)
      : add_(std::move(add)),
        plugin_(std::move(plugin)),
        kind_(kind),
        c_{sizeof(Handle), &CRegistrar::Register, this} {}
  CRegistrar(const CRegistrar&) = delete;
  CRegistrar& operator=(const CRegistrar&) = delete;

  Handle* handle() { return &c_; }
  const std::vector<std::string>& registered() const { return registered_; }
  const absl::Status& first_error() const { return first_error_; }

 private:
  static HmoStatusCode Register(Handle* c, const Item* item, char* message,
                                size_t capacity) noexcept {
    auto& self = *static_cast<CRegistrar*>(c->host_data);
    return CallReturningAbiStatus(
        [&] {
          absl::Status status =
              item == nullptr ? absl::InvalidArgumentError(fmt::format(
                                    "plugin '{}' registered a NULL {}", self.plugin_, self.kind_))
                              : self.add_(*item);
          if (status.ok()) {
            self.registered_.push_back(item->name);
          } else if (self.first_error_.ok()) {
            self.first_error_ = status;
          }
          return status;
        },
        message, capacity);
  }

  AddFn add_;
  std::string plugin_;
  const char* kind_;
  Handle c_;
  std::vector<std::string> registered_;
  absl::Status first_error_;
};

}  // namespace hmo

#endif  // HMO_SRC_PLUGIN_C_REGISTRAR_H_
