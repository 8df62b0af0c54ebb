// Stopping a command early, and saying why: SIGINT, SIGTERM, SIGHUP (the terminal closed),
// SIGXFSZ (a file reached the size limit, ulimit -f), or its wall-clock budget (--time-limit
// SECONDS on every command that runs a model, a reference or user code).
//
// All of them set one flag that every run of the command polls at each step
// (Simulator::stop_when, the rule interpreter's cycle, CVODE's steps): the run ends with reason
// `interrupted`, its files hold every complete row computed so far, and the command says where
// it stopped and exits with 128 + the signal's number as a shell does (130 SIGINT, 143
// SIGTERM, 129 SIGHUP, 153 SIGXFSZ on Linux) or 124 (the time limit, as timeout(1)). Work that does not poll the flag (a
// reference being read or computed, a model's own code that does not return) cannot be
// stopped cooperatively: kGraceSeconds after the time limit the watchdog ends the process
// itself, with a message and exit code 124.
#pragma once

#include <atomic>
#include <condition_variable>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>

#include <signal.h>

namespace hysim::study {

// Set when the command must stop early; what every run polls.
std::atomic<bool>& stop_flag();

// Why: 0 (not stopped), the signal's number or kTimeLimit.
inline constexpr int kTimeLimit = -1;
int stop_cause();
// "SIGINT", "SIGTERM", "SIGHUP", "SIGXFSZ" or "time limit (5 s)"; the exit code 128 + the
// signal's number, or 124.
std::string stop_cause_text();
int stop_exit_code();

// Installs the handlers of the stopping signals (SIGINT, SIGTERM, SIGHUP, SIGXFSZ) for its
// lifetime, restoring the previous ones after. A second signal of a kind ends the process
// (SIGXFSZ excepted: each write past the limit raises it again).
class StopOnSignals {
 public:
  StopOnSignals();
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
  struct sigaction previous_[std::size(kSignals)] {};
};

// The wall-clock budget of a command: a watchdog thread that raises the stop flag `seconds`
// after construction (0: no budget, no thread), and ends the process kGraceSeconds later if
// the command is still running. Destruction (the command ended) cancels it.
class Deadline {
 public:
  static constexpr double kGraceSeconds = 5;

  explicit Deadline(double seconds);
  ~Deadline();
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

 private:
  void watch(double seconds);

  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace hysim::study
