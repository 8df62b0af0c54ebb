// An ensemble of independent runs on the cores of one machine: a sweep over parameters, a
// Monte Carlo study, the combinations of a comparison (docs/sweeps.md).
//
// run_ensemble(count, options, job, sink) calls job(i) for i = 0 .. count-1 on a pool of
// options.jobs threads and hands each result to sink(i, result) on the calling thread, in the
// order of i, whatever the number of threads and whichever thread finished first. So the sink
// (a summary file, a reduction) sees the same sequence with 1 thread as with 64, and a job that
// draws random numbers from a stream seeded by i (sweep_seed) gives the same values too.
//
// Threads: options.jobs, at most kMaxJobsPerCore per hardware thread (more only wait on each
// other, and each reserves its stack). When the system refuses a thread (a limit on processes
// or on memory: ulimit -u, ulimit -v), the ensemble goes on with the threads it made, and
// throws Error only when it could make none. run_ensemble returns the number of threads it ran.
//
// Memory stays constant in count: a worker does not start job i until i is less than `window`
// ahead of the next result the sink is waiting for, so at most `window` results are held, each
// in its own slot of a ring. Workers claim short runs of consecutive jobs and the sink takes
// every consecutive result that is ready, so that with short jobs (tens of microseconds) and
// many threads the hand-over does not serialise them (detail::EnsembleQueue).
//
// A job must not touch shared mutable state: build its own Model and Simulator from read-only
// inputs (a ModelEntry, ParameterValues, SimulationOptions). An exception thrown by a job stops
// the ensemble: no job is claimed after it, the claimed ones finish, and the exception of the
// lowest index reaches the caller after the sink has seen every result before it.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "hysim/core/errors.hpp"

namespace hysim {

struct EnsembleOptions {
  static constexpr int kMaxJobsPerCore = 4;

  int jobs = 0;               // threads; 0: every core (std::thread::hardware_concurrency)
  std::int64_t window = 0;    // results held at most; 0: 64 per thread

  // Throws InvalidArgument naming the option.
  void validate() const {
    if (jobs < 0) throw InvalidArgument("option jobs must be >= 0 (0: every core), not " + std::to_string(jobs));
    if (window < 0) throw InvalidArgument("option window must be >= 0 (0: 64 per thread), not " + std::to_string(window));
  }
  // jobs (or every core), capped at kMaxJobsPerCore threads per core.
  int threads() const {
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    if (jobs > 0) return std::min(jobs, kMaxJobsPerCore * cores);
    return cores;
  }
};

// The seed of run i of a sweep seeded with `seed`: splitmix64 of both, so that neighbouring
// runs get unrelated streams and run i's draws do not depend on the number of threads.
inline std::uint64_t sweep_seed(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

namespace detail {

// The hand-over between the workers and the sink of run_ensemble. Result i waits in slot
// i % window: a job is claimed only when i < next_result + window, so its slot was emptied by
// the sink before (no map, no allocation per result). A worker claims a run of consecutive jobs
// (guided: an eighth of a thread's share of what is left, 1 to kMaxClaim), fills their slots
// outside the lock and publishes them together; the sink is woken only by the result it awaits
// and takes every consecutive one published in the same visit to the lock.
template <class Result>
class EnsembleQueue {
 public:
  static constexpr std::int64_t kMaxClaim = 16;

  EnsembleQueue(std::int64_t count, int threads, std::int64_t window)
      : count_(count), threads_(threads), window_(window), failed_at_(count),
        slots_(static_cast<std::size_t>(window)), published_(static_cast<std::size_t>(window), 0) {}

  std::optional<Result>& slot(std::int64_t i) { return slots_[static_cast<std::size_t>(i % window_)]; }

  // The next jobs [first, last) for a worker; first == last when there are none left.
  std::pair<std::int64_t, std::int64_t> claim() {
    std::unique_lock lock(mutex_);
    while (open() && next_job_ >= next_result_ + window_) {
      ++workers_wait_;
      room_.wait(lock);
      --workers_wait_;
    }
    if (!open()) return {next_job_, next_job_};
    const std::int64_t first = next_job_;
    const std::int64_t share = (count_ - first) / (8 * static_cast<std::int64_t>(threads_));
    next_job_ = std::min({first + std::clamp<std::int64_t>(share, 1, kMaxClaim), count_, next_result_ + window_});
    return {first, next_job_};
  }

  // The slots [first, done) are filled; `thrown`: the job `done` threw it.
  void publish(std::int64_t first, std::int64_t done, std::exception_ptr thrown) {
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      for (std::int64_t i = first; i < done; ++i) published_[static_cast<std::size_t>(i % window_)] = 1;
      wake = sink_waits_ && first <= next_result_ && next_result_ < done;
      if (thrown) {
        if (done < failed_at_) {
          failed_at_ = done;
          failure_ = thrown;
        }
        wake = true;
        room_.notify_all();
      }
    }
    if (wake) ready_.notify_one();
  }

  // Every result before `next` is sunk; moves the consecutive published results from `next` on
  // into `batch` (none: the job `next` failed).
  void take(std::int64_t next, std::vector<Result>& batch) {
    std::unique_lock lock(mutex_);
    next_result_ = next;
    if (workers_wait_ > 0) room_.notify_all();
    sink_waits_ = true;
    ready_.wait(lock, [&] { return published(next) || failed_at_ <= next; });
    sink_waits_ = false;
    for (std::int64_t i = next; i < count_ && published(i); ++i) {
      batch.push_back(std::move(*slot(i)));
      slot(i).reset();
      published_[static_cast<std::size_t>(i % window_)] = 0;
    }
  }

  // The sink failed: no job starts after the ones claimed.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      failed_at_ = std::min(failed_at_, next_job_);
    }
    room_.notify_all();
  }
  void finish() { room_.notify_all(); }
  std::exception_ptr failure() const { return failure_; }

 private:
  bool open() const { return next_job_ < count_ && next_job_ < failed_at_; }
  bool published(std::int64_t i) const { return published_[static_cast<std::size_t>(i % window_)] != 0; }

  const std::int64_t count_;
  const int threads_;
  const std::int64_t window_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;  // the awaited result arrived (or a failure); the sink made room
  std::int64_t next_job_ = 0, next_result_ = 0;  // next_result_: the result the sink awaits
  bool sink_waits_ = false;
  int workers_wait_ = 0;
  std::int64_t failed_at_;  // the lowest index whose job threw
  std::exception_ptr failure_;
  std::vector<std::optional<Result>> slots_;
  std::vector<char> published_;  // slot filled and handed over (read and written under the lock)
};

}  // namespace detail

template <class Result, class Job, class Sink>
int run_ensemble(std::int64_t count, const EnsembleOptions& options, Job&& job, Sink&& sink) {
  options.validate();
  if (count <= 0) return 0;
  const int threads = static_cast<int>(std::min<std::int64_t>(options.threads(), count));
  const std::int64_t window = options.window > 0 ? options.window : 64 * static_cast<std::int64_t>(threads);
  detail::EnsembleQueue<Result> queue(count, threads, window);

  const auto worker = [&] {
    for (;;) {
      const auto [first, last] = queue.claim();
      if (first == last) return;
      std::int64_t i = first;
      std::exception_ptr thrown;
      for (; i < last; ++i) {  // the claimed slots belong to this worker until published
        try {
          queue.slot(i).emplace(job(i));
        } catch (...) {
          thrown = std::current_exception();
          break;
        }
      }
      queue.publish(first, i, thrown);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int k = 0; k < threads; ++k) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error& e) {  // EAGAIN: the threads made so far do the work
      if (!pool.empty()) break;
      throw Error(std::string("cannot start a thread for the ensemble: ") + e.what());
    }
  }

  // The sink hands on each batch outside the lock; its slots count as held until it is sunk.
  std::exception_ptr sink_failure;
  try {
    std::vector<Result> batch;
    for (std::int64_t i = 0; i < count;) {
      queue.take(i, batch);
      if (batch.empty()) break;  // the job of index i failed
      for (Result& result : batch) sink(i++, std::move(result));
      batch.clear();
    }
  } catch (...) {  // the sink failed (a full disk): stop the workers, then rethrow
    sink_failure = std::current_exception();
    queue.stop();
  }
  queue.finish();
  for (auto& thread : pool) thread.join();
  if (sink_failure) std::rethrow_exception(sink_failure);
  if (queue.failure()) std::rethrow_exception(queue.failure());
  return static_cast<int>(pool.size());
}

}  // namespace hysim
