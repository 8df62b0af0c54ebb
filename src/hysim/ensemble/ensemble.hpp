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
// in its own slot of a ring. The sink is woken only by the result it awaits and then takes every
// consecutive one that is ready, so that with short jobs (tens of microseconds) and many threads
// the hand-over does not serialise them.
//
// A job must not touch shared mutable state: build its own Model and Simulator from read-only
// inputs (a ModelEntry, ParameterValues, SimulationOptions). An exception thrown by a job stops
// the ensemble: no job starts after it, the running ones finish, and the exception of the
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

template <class Result, class Job, class Sink>
int run_ensemble(std::int64_t count, const EnsembleOptions& options, Job&& job, Sink&& sink) {
  options.validate();
  if (count <= 0) return 0;
  const int threads = static_cast<int>(std::min<std::int64_t>(options.threads(), count));
  const std::int64_t window = options.window > 0 ? options.window : 64 * static_cast<std::int64_t>(threads);

  // Result i waits in slot i % window: a job starts only when i < next_result + window, so its
  // slot was emptied by the sink before (no map, no allocation per result).
  std::vector<std::optional<Result>> slots(static_cast<std::size_t>(window));
  const auto slot = [&](std::int64_t i) -> std::optional<Result>& { return slots[static_cast<std::size_t>(i % window)]; };
  std::mutex mutex;
  std::condition_variable ready, room;  // the awaited result arrived (or a failure); the sink made room
  std::int64_t next_job = 0, next_result = 0;  // next_result: the result the sink awaits
  bool sink_waits = false;
  int workers_wait = 0;
  std::int64_t failed_at = count;  // the lowest index whose job threw
  std::exception_ptr failure;

  const auto worker = [&] {
    for (;;) {
      std::int64_t i;
      {
        std::unique_lock lock(mutex);
        while (next_job < count && next_job < failed_at && next_job >= next_result + window) {
          ++workers_wait;
          room.wait(lock);
          --workers_wait;
        }
        if (next_job >= count || next_job >= failed_at) return;
        i = next_job++;
      }
      bool wake = false;
      try {
        Result result = job(i);
        std::lock_guard lock(mutex);
        slot(i).emplace(std::move(result));
        wake = sink_waits && i == next_result;  // the sink sleeps on exactly this one
      } catch (...) {
        std::lock_guard lock(mutex);
        if (i < failed_at) {
          failed_at = i;
          failure = std::current_exception();
        }
        wake = true;
        room.notify_all();
      }
      if (wake) ready.notify_one();
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

  // The sink takes every consecutive result that is ready in one visit to the lock, then
  // hands them on outside it; their slots count as held until they are sunk.
  std::exception_ptr sink_failure;
  try {
    std::vector<Result> batch;
    for (std::int64_t i = 0; i < count;) {
      const std::int64_t first = i;
      {
        std::unique_lock lock(mutex);
        next_result = i;  // every result before i is sunk: their slots take new jobs
        if (workers_wait > 0) room.notify_all();
        sink_waits = true;
        ready.wait(lock, [&] { return slot(i).has_value() || failed_at <= i; });
        sink_waits = false;
        for (; i < count && slot(i).has_value(); ++i) {
          batch.push_back(std::move(*slot(i)));
          slot(i).reset();
        }
      }
      if (batch.empty()) break;  // the job of index i failed
      for (std::size_t k = 0; k < batch.size(); ++k) sink(first + static_cast<std::int64_t>(k), std::move(batch[k]));
      batch.clear();
    }
  } catch (...) {  // the sink failed (a full disk): stop the workers, then rethrow
    sink_failure = std::current_exception();
    std::lock_guard lock(mutex);
    failed_at = std::min(failed_at, next_job);
  }
  room.notify_all();
  for (auto& thread : pool) thread.join();
  if (sink_failure) std::rethrow_exception(sink_failure);
  if (failure) std::rethrow_exception(failure);
  return static_cast<int>(pool.size());
}

}  // namespace hysim
