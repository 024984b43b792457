#include "logging_options.h"

#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace hmo::cli {

void LoggingOptions::AddTo(ArgumentParser& parser) {
  parser.AddFlag("-v,--verbose", &verbose, "log more (debug level)");
  parser.AddFlag("-q,--quiet", &quiet, "log only errors");
}

void LoggingOptions::Apply() const {
  auto logger = spdlog::stderr_color_mt("hmo");
  logger->set_pattern("hmo: %^%l%$: %v");
  logger->set_level(verbose ? spdlog::level::debug
                    : quiet ? spdlog::level::err
                            : spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace hmo::cli
