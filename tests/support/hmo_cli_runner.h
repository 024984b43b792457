#ifndef HMO_TESTS_SUPPORT_HMO_CLI_RUNNER_H_
#define HMO_TESTS_SUPPORT_HMO_CLI_RUNNER_H_

// Runs the built `hmo` binary (HMO_BINARY_DIR/bin/hmo) from a test and
// captures its exit code, stdout and stderr. ctest runs tests as parallel
// processes, so the capture files are named by process id and a counter.

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hmo::test_support {

struct HmoCliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string SlurpFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Runs `hmo <arguments>` (a shell command line fragment; quote paths with
// spaces yourself) with `environment` prepended (e.g. "HMO_PLUGIN_PATH=x").
inline HmoCliRun RunHmoCli(const std::string& arguments, const std::string& environment = "") {
  static std::atomic<int> counter{0};
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string tag = std::to_string(::getpid()) + "." + std::to_string(counter++);
  const std::filesystem::path out = dir / ("hmo_cli_out." + tag + ".txt");
  const std::filesystem::path err = dir / ("hmo_cli_err." + tag + ".txt");
  const std::string command = (environment.empty() ? "" : environment + " ") +
                              std::string(HMO_BINARY_DIR) + "/bin/hmo " + arguments + " > " +
                              out.string() + " 2> " + err.string();
  HmoCliRun run;
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = SlurpFile(out);
  run.err = SlurpFile(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return run;
}

}  // namespace hmo::test_support

#endif  // HMO_TESTS_SUPPORT_HMO_CLI_RUNNER_H_
