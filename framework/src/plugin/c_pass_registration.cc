#include "c_pass_registration.h"

#include "c_option_schema.h"

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_printer.h"
#include "hmo/plugin/abi_status.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"

namespace hmo {
namespace {

constexpr size_t kCPassMinSize = offsetof(HmoCPass, pass_data) + sizeof(const void*);

// One declared option as the host keeps it.
struct COptionDecl {
  std::string key;
  HmoPassOptionType type = kHmoPassOptionString;
};

// What every pass object created from one registration shares.
struct CPassEntry {
  std::string name;
  std::string plugin;
  HmoRunPassFn run = nullptr;
  const void* pass_data = nullptr;
  std::vector<COptionDecl> options;
};

// The module text a pass hands back through set_result.
struct PassResult {
  bool set = false;
  std::string text;
};

HmoStatusCode SetResult(HmoPassRunRequest* request, const char* text, size_t length) {
  auto& result = *static_cast<PassResult*>(request->host_data);
  result.set = true;
  result.text.assign(text == nullptr ? "" : text, text == nullptr ? 0 : length);
  return kHmoOk;
}

// The form the module crosses the boundary in: hmo's canonical (lossless)
// text with `%` before every name, so that a C pass finds names without
// parsing HLO.
HloPrintOptions ExchangeForm() {
  HloPrintOptions options = HloPrintOptions::Canonical();
  options.print_percent = true;
  return options;
}

class CPass : public HloPass {
 public:
  CPass(std::shared_ptr<const CPassEntry> entry, PassOptions options)
      : entry_(std::move(entry)), options_(std::move(options)) {}

  std::string_view name() const override { return entry_->name; }

  absl::StatusOr<bool> Run(HloModule& module, PassContext& /*context*/) override {
    const std::string text = PrintHloModule(module, ExchangeForm());

    // The typed values, with storage for list items' pointers.
    std::vector<HmoPassOptionValue> values;
    std::vector<std::vector<const char*>> lists;
    values.reserve(entry_->options.size());
    lists.reserve(entry_->options.size());
    for (const COptionDecl& decl : entry_->options) {
      const PassOptionValue* value = options_.Find(decl.key);
      if (value == nullptr) {
        return absl::InternalError(
            fmt::format("C pass '{}' runs without option '{}'", entry_->name, decl.key));
      }
      HmoPassOptionValue& out = values.emplace_back();
      out.key = decl.key.c_str();
      out.type = decl.type;
      if (const auto* b = std::get_if<bool>(value)) out.bool_value = *b ? 1 : 0;
      if (const auto* i = std::get_if<int64_t>(value)) out.int_value = *i;
      if (const auto* d = std::get_if<double>(value)) out.double_value = *d;
      if (const auto* s = std::get_if<std::string>(value)) out.string_value = s->c_str();
      if (const auto* list = std::get_if<std::vector<std::string>>(value)) {
        std::vector<const char*>& items = lists.emplace_back();
        for (const std::string& item : *list) items.push_back(item.c_str());
        out.list_values = items.data();
        out.list_count = items.size();
      }
    }

    PassResult result;
    std::array<char, HMO_MESSAGE_CAPACITY> message{};
    HmoPassRunRequest request{};
    request.struct_size = sizeof(HmoPassRunRequest);
    request.pass_name = entry_->name.c_str();
    request.module_text = text.c_str();
    request.module_text_length = text.size();
    request.options = values.data();
    request.option_count = values.size();
    request.message = message.data();
    request.message_capacity = message.size();
    request.set_result = &SetResult;
    request.host_data = &result;
    // A C++ plugin on this tier could still throw; it must not cross.
    const HmoStatusCode code = CallReturningAbiStatus(
        [&] {
          const HmoStatusCode returned = entry_->run(entry_->pass_data, &request);
          return StatusFromAbi(returned, AbiMessage(message.data(), message.size()));
        },
        message.data(), message.size());
    if (code != kHmoOk) {
      return absl::Status(
          StatusFromAbi(code, "").code(),
          fmt::format("pass '{}' (plugin '{}') failed on module '{}': {}", entry_->name,
                      entry_->plugin, module.name(), AbiMessage(message.data(), message.size())));
    }
    if (!result.set || result.text == text) return false;

    const std::string origin =
        fmt::format("<output of pass '{}' (plugin '{}')>", entry_->name, entry_->plugin);
    absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(result.text, origin);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("pass '{}' (plugin '{}') returned HLO text that does not parse:\n{}",
                      entry_->name, entry_->plugin, std::string(parsed.status().message())));
    }
    if (absl::Status verified = VerifyHloModule(**parsed); !verified.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("pass '{}' (plugin '{}') returned a module that does not verify: {}",
                      entry_->name, entry_->plugin, std::string(verified.message())));
    }
    // The module keeps its name; a result that reads back as the same module
    // (other spacing, the other form) is no change.
    (*parsed)->set_name(module.name());
    if (PrintHloModule(**parsed, ExchangeForm()) == text) return false;
    module.ReplaceContentsWith(*std::move(parsed));
    return true;
  }

 private:
  std::shared_ptr<const CPassEntry> entry_;
  PassOptions options_;
};

absl::StatusOr<PassRegistration> MakeRegistration(const HmoCPass& pass, std::string_view plugin) {
  if (pass.struct_size < kCPassMinSize) {
    return absl::InvalidArgumentError(fmt::format(
        "has struct_size {}, less than the {} bytes of ABI 1.3", pass.struct_size, kCPassMinSize));
  }
  if (pass.name == nullptr) return absl::InvalidArgumentError("has a NULL name");
  if (pass.run == nullptr) return absl::InvalidArgumentError("has a NULL run function");
  auto entry = std::make_shared<CPassEntry>();
  entry->name = pass.name;
  entry->plugin = std::string(plugin);
  entry->run = pass.run;
  entry->pass_data = pass.pass_data;
  HMO_ASSIGN_OR_RETURN(PassOptionSchema schema,
                       OptionSchemaFromDeclarations(pass.options, pass.option_count));
  for (size_t i = 0; i < pass.option_count; ++i) {
    entry->options.push_back({pass.options[i]->key, pass.options[i]->type});
  }
  PassRegistration registration;
  registration.name = entry->name;
  registration.description = pass.description == nullptr ? "" : pass.description;
  registration.options = std::move(schema);
  registration.create =
      [entry = std::shared_ptr<const CPassEntry>(std::move(entry))](
          const PassOptions& options) -> absl::StatusOr<std::unique_ptr<HloPass>> {
    return std::unique_ptr<HloPass>(std::make_unique<CPass>(entry, options));
  };
  return registration;
}

}  // namespace

absl::StatusOr<PassRegistration> MakeCPassRegistration(const HmoCPass& pass,
                                                       std::string_view plugin) {
  absl::StatusOr<PassRegistration> registration = MakeRegistration(pass, plugin);
  if (registration.ok()) return registration;
  return absl::Status(
      registration.status().code(),
      fmt::format("C pass '{}' of plugin '{}' {}",
                  pass.struct_size >= kCPassMinSize && pass.name != nullptr ? pass.name : "?",
                  plugin, std::string(registration.status().message())));
}

}  // namespace hmo
