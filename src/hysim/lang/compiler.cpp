#include "hysim/lang/compiler.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "hysim/core/errors.hpp"

extern char** environ;

namespace hysim::lang {

namespace {

bool is_executable_file(const std::string& path) {
  struct stat s {};
  return ::stat(path.c_str(), &s) == 0 && S_ISREG(s.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The supervisor's handler: SIGKILL to its whole process group (the compiler, what the compiler
// started, and itself). kill() is async-signal-safe.
extern "C" void kill_own_group(int) { ::kill(0, SIGKILL); }

// The forked supervisor (see compiler.hpp). Between fork and exec a child of a threaded
// process may only make async-signal-safe calls: everything it needs was prepared before.
[[noreturn]] void supervise(char* const* argv, int log_fd, int null_fd, pid_t hysim) {
  ::setpgid(0, 0);
  struct sigaction kill_all {};
  kill_all.sa_handler = kill_own_group;
  sigemptyset(&kill_all.sa_mask);
  ::sigaction(SIGTERM, &kill_all, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != hysim) kill_own_group(0);  // hysim died before the request was made
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const pid_t compiler = ::fork();
  if (compiler == 0) {
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    sigemptyset(&defaults.sa_mask);
    ::sigaction(SIGTERM, &defaults, nullptr);
    ::sigaction(SIGPIPE, &defaults, nullptr);  // hysim ignores it; the compiler should not
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(log_fd, 2);
    ::execve(argv[0], argv, environ);
    _exit(127);
  }
  if (compiler < 0) _exit(126);
  int status = 0;
  while (::waitpid(compiler, &status, 0) < 0) {
    if (errno != EINTR) _exit(125);
  }
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  _exit(128 + WTERMSIG(status));
}

void pause_briefly(double seconds) {
  struct timespec pause {};
  pause.tv_nsec = static_cast<long>(seconds * 1e9);
  ::nanosleep(&pause, nullptr);  // EINTR: the loop looks again sooner, no harm
}

}  // namespace

std::string find_compiler(const std::string& name) {
  if (name.find_first_of(" \t\n") != std::string::npos) {
    throw InvalidArgument("HYSIM_CC='" + name +
                          "' holds blanks: it names one program (a path, or a name on PATH), without arguments");
  }
  if (name.find('/') != std::string::npos) {
    const std::string path = std::filesystem::absolute(name).lexically_normal().string();
    if (!is_executable_file(path)) throw InvalidArgument("the C compiler '" + path + "' (HYSIM_CC) is not an executable file");
    return path;
  }
  const char* path_variable = std::getenv("PATH");
  std::stringstream folders(path_variable != nullptr ? path_variable : "/usr/local/bin:/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    if (folder.empty() || folder.front() != '/') continue;  // the current folder: skipped
    const std::string candidate = folder + "/" + name;
    if (is_executable_file(candidate)) return candidate;
  }
  throw InvalidArgument("the C compiler '" + name + "' (HYSIM_CC, default cc) is not on PATH");
}

CompilerRun run_compiler(const std::vector<std::string>& args, int log_fd, double timeout_seconds,
                         const std::atomic<bool>* stop) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  CompilerRun run;
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0) {
    run.status = errno;
    return run;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t hysim = ::getpid();
  const pid_t supervisor = ::fork();
  if (supervisor == 0) supervise(argv.data(), log_fd, null_fd, hysim);
  const int fork_error = errno;
  ::close(null_fd);
  if (supervisor < 0) {
    run.status = fork_error;
    return run;
  }
  ::setpgid(supervisor, supervisor);  // as the supervisor does itself: whichever runs first
  double pause = 1e-3;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(supervisor, &status, WNOHANG);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done == supervisor) {
      run.outcome = WIFEXITED(status) ? CompilerRun::Outcome::kExited : CompilerRun::Outcome::kSignaled;
      run.status = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
      return run;
    }
    if (done < 0 && errno == ECHILD) {
      // SIGCHLD ignored by the program that embeds hysim: the child was reaped and its status
      // is lost; the caller judges by the object it finds.
      run.outcome = CompilerRun::Outcome::kExited;
      return run;
    }
    const bool stopped = stop != nullptr && stop->load(std::memory_order_relaxed);
    if (stopped || run.seconds > timeout_seconds) {
      ::kill(-supervisor, SIGKILL);
      while (::waitpid(supervisor, &status, 0) < 0 && errno == EINTR) {
      }
      run.outcome = stopped ? CompilerRun::Outcome::kStopped : CompilerRun::Outcome::kTimedOut;
      return run;
    }
    pause_briefly(pause);
    pause = std::min(2 * pause, 0.02);  // a compile takes 0.05 s or more
  }
}

}  // namespace hysim::lang
