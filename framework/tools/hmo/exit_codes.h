#ifndef HMO_TOOLS_HMO_EXIT_CODES_H_
#define HMO_TOOLS_HMO_EXIT_CODES_H_

// The exit status of every hmo subcommand.

namespace hmo::cli {

inline constexpr int kExitOk = 0;       // everything succeeded
inline constexpr int kExitFailure = 1;  // the work failed (bad input, failing pass, ...)
inline constexpr int kExitUsage = 2;    // the command line itself is wrong

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_EXIT_CODES_H_
