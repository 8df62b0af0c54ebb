// Running the system's C compiler on a generated model: found without a shell, bounded in
// time, stoppable, and never outliving hysim.
//
// The compiler and everything it starts (cc1, as, ld) run in a process group of their own,
// led by a small supervisor forked from hysim. The supervisor asks the kernel for SIGTERM when
// hysim dies (PR_SET_PDEATHSIG), even by SIGKILL, and then kills the whole group; hysim itself
// kills the group when the time limit passes or its stop flag is raised (SIGINT, SIGTERM,
// --time-limit). So no cc1 is left running after hysim.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace hysim::lang {

// The absolute path of the compiler `name`: a path (containing '/') as it is, made absolute;
// a bare name searched in the absolute folders of PATH (a relative entry, or an empty one
// meaning the current folder, is skipped: the current folder may be anyone's). Throws
// InvalidArgument when `name` holds blanks (a program and its arguments: HYSIM_CC names one
// program) or is not an executable file.
std::string find_compiler(const std::string& name);

struct CompilerRun {
  enum class Outcome { kExited, kSignaled, kTimedOut, kStopped, kNotStarted };
  Outcome outcome = Outcome::kNotStarted;
  int status = 0;  // kExited: the exit status; kSignaled: the signal; kNotStarted: errno
  double seconds = 0;
  bool succeeded() const { return outcome == Outcome::kExited && status == 0; }
};

// Runs args[0] (an absolute path) with args, stdin and stdout on /dev/null and stderr on the
// open file `log_fd`; waits until it ends, `timeout_seconds` pass, or `*stop` becomes true
// (stop may be null), killing the process group in the two last cases.
CompilerRun run_compiler(const std::vector<std::string>& args, int log_fd, double timeout_seconds,
                         const std::atomic<bool>* stop);

}  // namespace hysim::lang
