// Time spent inside an observer's callbacks, so that a run's wall time can leave it out.
#pragma once

#include <chrono>

namespace hysim::study {

// Adds the steady-clock time between its construction and its destruction to *total.
class ScopedTimer {
 public:
  // total == nullptr: nothing is timed (the clock is not read).
  explicit ScopedTimer(double* total)
      : total_(total), start_(total != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{}) {}
  ~ScopedTimer() {
    if (total_ != nullptr) *total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double* total_;
  std::chrono::steady_clock::time_point start_;
};

// Seconds of steady clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hysim::study
