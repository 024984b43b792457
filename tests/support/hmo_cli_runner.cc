#include "support/hmo_cli_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>

#include "support/test_data.h"

namespace hmo::test_support {

HmoCliRun RunHmoCli(const std::string& arguments, const std::string& environment) {
  return RunHmoCliLaunchedBy(environment, arguments);
}

HmoCliRun RunHmoCliLaunchedBy(const std::string& launcher, const std::string& arguments) {
  static std::atomic<int> counter{0};
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string tag = std::to_string(::getpid()) + "." + std::to_string(counter++);
  const std::filesystem::path out = dir / ("hmo_cli_out." + tag + ".txt");
  const std::filesystem::path err = dir / ("hmo_cli_err." + tag + ".txt");
  const std::string command = (launcher.empty() ? "" : launcher + " ") +
                              std::string(HMO_BINARY_DIR) + "/bin/hmo " + arguments + " > " +
                              out.string() + " 2> " + err.string();
  HmoCliRun run;
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadFileOrEmpty(out);
  run.err = ReadFileOrEmpty(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return run;
}

}  // namespace hmo::test_support
