// Stopping a command early (hysim/study/stop.hpp).
#include "hysim/study/stop.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "hysim/core/scalar.hpp"

namespace hysim::study {

namespace {

volatile std::sig_atomic_t g_cause = 0;
std::atomic<double> g_time_limit{0};

extern "C" void on_stop_signal(int signal) {
  g_cause = signal;
  stop_flag().store(true, std::memory_order_relaxed);
}

}  // namespace

std::atomic<bool>& stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

int stop_cause() { return g_cause; }

std::string stop_cause_text() {
  switch (g_cause) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGXFSZ: return "SIGXFSZ";
    case kTimeLimit: return "time limit (" + format_scalar(g_time_limit.load(), 6) + " s)";
    default: return "";
  }
}

int stop_exit_code() { return g_cause == kTimeLimit ? 124 : 128 + static_cast<int>(g_cause); }

StopOnSignals::StopOnSignals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    // A second signal ends the process at once; but SIGXFSZ comes again with every write past
    // the size limit (the flushes as the files close), and its default dumps core: it stays
    // caught, each of those writes fails with EFBIG, and the writers report it.
    action.sa_flags = kSignals[i] == SIGXFSZ ? 0 : SA_RESETHAND;
    sigaction(kSignals[i], &action, &previous_[i]);
  }
}

StopOnSignals::~StopOnSignals() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

Deadline::Deadline(double seconds) {
  if (seconds > 0) thread_ = std::thread([this, seconds] { watch(seconds); });
}

Deadline::~Deadline() {
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  done_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Deadline::watch(double seconds) {
  std::unique_lock lock(mutex_);
  const auto limit = std::chrono::duration<double>(seconds);
  if (done_.wait_for(lock, limit, [this] { return finished_; })) return;
  g_time_limit.store(seconds);
  if (g_cause == 0) g_cause = kTimeLimit;
  stop_flag().store(true, std::memory_order_relaxed);
  if (done_.wait_for(lock, std::chrono::duration<double>(kGraceSeconds), [this] { return finished_; })) return;
  // The command did not reach a point where it polls the flag: end the process. Files written
  // so far keep what reached them; stdio is flushed, C++ streams of other threads cannot be.
  const std::string text = "hysim: error: " + stop_cause_text() + " reached, and the command did not stop within " +
                           format_scalar(kGraceSeconds, 3) +
                           " s (it was reading or computing something that does not poll for a stop: a reference, "
                           "a model's own code); ended\n";
  const ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
  std::fflush(nullptr);
  std::_Exit(124);
}

}  // namespace hysim::study
