// The progress line of long work (issue 33), end to end: the built hmo
// binary, run with stderr on a pseudo-terminal, draws it ("\r<task>: ...",
// erased to the end of the line) while `hmo pack --algorithm tight` searches
// and while `hmo run pipelines/fit.yaml --memory-limit` fits; with stderr on
// a pipe, or under -q, not a byte of it appears.

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct Captured {
  int exit_code = -1;
  std::string err;  // everything written to stderr
};

// Runs `hmo <arguments>` through /bin/sh, stdout to /dev/null, stderr on a
// pseudo-terminal (`terminal`) or a pipe, and collects stderr until the
// process exits.
Captured RunHmo(const std::string& arguments, bool terminal) {
  Captured captured;
  int read_end = -1, write_end = -1;
  if (terminal) {
    // A wide terminal, so that nothing depends on line wrapping, whose
    // output is passed on raw ("\n" not turned into "\r\n").
    struct winsize size = {};
    size.ws_row = 50;
    size.ws_col = 400;
    struct termios mode = {};
    cfmakeraw(&mode);
    if (openpty(&read_end, &write_end, nullptr, &mode, &size) != 0) {
      ADD_FAILURE() << "openpty failed: errno " << errno;
      return captured;
    }
  } else {
    int fds[2];
    if (pipe(fds) != 0) {
      ADD_FAILURE() << "pipe failed: errno " << errno;
      return captured;
    }
    read_end = fds[0];
    write_end = fds[1];
  }
  const std::string command =
      std::string(HMO_BINARY_DIR) + "/bin/hmo " + arguments + " < /dev/null > /dev/null";
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(write_end, STDERR_FILENO);
    close(write_end);
    close(read_end);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(write_end);
  // Read until the child's side closes (EOF on a pipe, EIO on a pty).
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(read_end, buffer, sizeof(buffer));
    if (n > 0) {
      captured.err.append(buffer, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(read_end);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  captured.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return captured;
}

// What the terminal sink draws and nothing else does: a carriage return
// (the line redrawn in place) and "erase to the end of the line".
void ExpectNoProgress(const Captured& run) {
  EXPECT_THAT(run.err, Not(HasSubstr("\r"))) << run.err;
  EXPECT_THAT(run.err, Not(HasSubstr("\033[K"))) << run.err;
}

fs::path TempPath(const std::string& stem) {
  return fs::temp_directory_path() / (stem + "." + std::to_string(getpid()));
}

// MiniMalloc's challenging instances (bench/minimalloc/data/README.md). On J
// best fit is far above the lower bound, which no search reaches: 60,000
// nodes take over half a second, past the terminal line's redraw interval
// (a tenth of one) after the line announcing the search.
std::string Challenging(const std::string& letter) {
  return std::string(HMO_SOURCE_DIR) + "/bench/minimalloc/data/challenging/" + letter +
         ".1048576.csv";
}
const std::string kInstance = Challenging("J");

std::string PackArguments(const fs::path& out) {
  return "pack " + kInstance + " --algorithm tight --node-budget 60000 -o " + out.string();
}

TEST(ProgressTerminalCliTest, PackDrawsTheTightSearchOnATerminal) {
  const fs::path out = TempPath("hmo_progress_pack.csv");
  const Captured run = RunHmo(PackArguments(out), /*terminal=*/true);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The first report is drawn whatever the time: nodes of the budget and the
  // best height against the lower bound.
  EXPECT_THAT(run.err, testing::ContainsRegex("\rtight search: [0-9]+/60000, best height [0-9]+ "
                                              "against the lower bound [0-9]+ \\(\\+"));
  EXPECT_THAT(run.err, HasSubstr("\033[K"));
  // The line is erased before the summary.
  EXPECT_THAT(run.err, HasSubstr("\r\033[K" + kInstance + ": "));
  EXPECT_THAT(run.err, HasSubstr("algorithm tight: height "));
  fs::remove(out);
}

TEST(ProgressTerminalCliTest, PackDecisionDrawsTheCapacityOnATerminal) {
  // E does not fit its capacity within 5000 nodes (the first report is
  // drawn whenever it comes).
  const Captured run = RunHmo("pack " + Challenging("E") + " --capacity 1048576 --node-budget 5000",
                              /*terminal=*/true);
  EXPECT_EQ(run.exit_code, 1) << run.err;  // aborted within 5000 nodes
  EXPECT_THAT(run.err,
              testing::ContainsRegex("\rtight search: [0-9]+/5000, deciding capacity 1048576"));
  EXPECT_THAT(run.err, HasSubstr(": aborted (node budget)"));
}

TEST(ProgressTerminalCliTest, PackShowsNoProgressOnAPipeOrUnderQuiet) {
  const fs::path out = TempPath("hmo_progress_pack_quiet.csv");
  const Captured piped = RunHmo(PackArguments(out), /*terminal=*/false);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  ExpectNoProgress(piped);
  EXPECT_THAT(piped.err, Not(HasSubstr("tight search")));
  EXPECT_THAT(piped.err, HasSubstr("algorithm tight: height "));

  const Captured quiet = RunHmo(PackArguments(out) + " -q", /*terminal=*/true);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  ExpectNoProgress(quiet);
  EXPECT_THAT(quiet.err, Not(HasSubstr("tight search")));
  fs::remove(out);
}

// XLA's optimized dump of a transformer training step fits 380,000 bytes in
// a few fit steps (about two seconds).
std::string FitArguments(const fs::path& out) {
  return "run " + std::string(HMO_SOURCE_DIR) + "/pipelines/fit.yaml " +
         std::string(HMO_TEST_DATA_DIR) +
         "/corpus/transformer_adam/module_0000.jit_transformer_adam_step.cpu_after_"
         "optimizations.txt --memory-limit 380000 -o " +
         out.string();
}

TEST(ProgressTerminalCliTest, FitDrawsItsStepsOnATerminal) {
  const fs::path out = TempPath("hmo_progress_fit.hlo");
  const Captured run = RunHmo(FitArguments(out), /*terminal=*/true);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, testing::ContainsRegex("\rfit \\([a-z ]+\\): step [0-9]+, device [0-9]+ B "
                                              "against the limit 380000 B"));
  EXPECT_THAT(run.err, HasSubstr("\033[K"));
  EXPECT_TRUE(fs::exists(out));
  fs::remove(out);
}

TEST(ProgressTerminalCliTest, FitShowsNoProgressOnAPipeOrUnderQuiet) {
  const fs::path out = TempPath("hmo_progress_fit_quiet.hlo");
  const Captured piped = RunHmo(FitArguments(out), /*terminal=*/false);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  ExpectNoProgress(piped);
  EXPECT_THAT(piped.err, Not(HasSubstr("fit (")));

  const Captured quiet = RunHmo(FitArguments(out) + " -q", /*terminal=*/true);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  ExpectNoProgress(quiet);
  EXPECT_THAT(quiet.err, Not(HasSubstr("fit (")));
  fs::remove(out);
}

}  // namespace
