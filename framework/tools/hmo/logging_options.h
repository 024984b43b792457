#ifndef HMO_TOOLS_HMO_LOGGING_OPTIONS_H_
#define HMO_TOOLS_HMO_LOGGING_OPTIONS_H_

// -v / -q: how much hmo logs. Logs go to stderr through spdlog; results go to
// stdout or files. Default level: info; -v: debug; -q: errors only.

#include "argument_parser.h"

namespace hmo::cli {

struct LoggingOptions {
  bool verbose = false;
  bool quiet = false;

  void AddTo(ArgumentParser& parser);
  // Points spdlog's default logger at stderr with the chosen level.
  void Apply() const;
};

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_LOGGING_OPTIONS_H_
