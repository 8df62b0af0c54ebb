// The ensemble runner's speedup: a sweep of the PWM servo over kp, 1000 runs over
// [0, t_end], on 1 thread and on N threads, in one run of this binary. The two alternate and
// each pair's ratio is kept, so that a noisy neighbour slows both alike: read the median ratio
// (the ratio of the fastest of each is printed too).
// The summaries must agree (every number of every run); the binary exits 1 if they do not.
//
//   build/bench/sweep_bench [runs=1000] [t_end=10] [threads=2] [repeats=9]
//
// Target: at least 1.8 on 2 threads of a 2-core machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hysim/study/sweep.hpp"

namespace {

using namespace hysim;

// One sweep: its summary, and its wall time.
struct Sweep {
  std::vector<std::string> numbers;  // every cell of the summary but the wall time
  double seconds = 0;
};

// Every field of a row but the wall time, as text.
void append_numbers(const study::SweepRow& row, std::vector<std::string>* numbers) {
  numbers->push_back(std::to_string(row.run));
  for (const auto& value : row.swept) numbers->push_back(value.text);
  numbers->insert(numbers->end(), {row.reason, row.message, row.t.text, row.mode});
  for (const auto& t : row.event_times) numbers->push_back(t.text);
  for (const auto& x : row.state) numbers->push_back(x.text);
  for (const auto& count : {row.events, row.steps, row.rejected, row.field_evals, row.guard_evals}) {
    numbers->push_back(count ? std::to_string(*count) : "");
  }
}

// `hysim sweep pwm-servo --param kp=0.05:0.2:RUNS --t-end T_END --jobs THREADS`, the program's
// own code (hysim/study/sweep.hpp), its summary kept but the wall time.
Sweep sweep(std::int64_t runs, double t_end, int threads) {
  study::SweepRequest request;
  request.choice.model = "pwm-servo";
  request.choice.params = {"kp=0.05:0.2:" + std::to_string(runs)};
  request.options.t_end = t_end;
  request.jobs = threads;
  Sweep out;
  const auto start = std::chrono::steady_clock::now();
  study::run_sweep(request, [](const study::SweepColumns&) {},
                   [&](study::SweepRow&& row) { append_numbers(row, &out.numbers); });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t runs = argc > 1 ? std::atoll(argv[1]) : 1000;
  const double t_end = argc > 2 ? std::atof(argv[2]) : 10.0;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 9;
  if (runs < 2 || !(t_end > 0) || threads < 1 || repeats < 1) {
    std::fprintf(stderr, "usage: sweep_bench [runs>=2] [t_end>0] [threads>=1] [repeats>=1]\n");
    return 2;
  }
  double serial = 1e300, parallel = 1e300;
  std::vector<double> ratios;
  bool same = true;
  for (int k = 0; k < repeats; ++k) {
    const Sweep one = sweep(runs, t_end, 1);
    const Sweep many = sweep(runs, t_end, threads);
    serial = std::min(serial, one.seconds);
    parallel = std::min(parallel, many.seconds);
    ratios.push_back(one.seconds / many.seconds);
    same = same && one.numbers == many.numbers;
  }
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  std::printf("pwm-servo sweep over kp: %lld runs over [0, %g] s, fastest of %d\n", static_cast<long long>(runs), t_end,
              repeats);
  std::printf("  1 thread:  %.3f s (%.0f runs/s)\n", serial, static_cast<double>(runs) / serial);
  std::printf("  %d threads: %.3f s (%.0f runs/s)\n", threads, parallel, static_cast<double>(runs) / parallel);
  std::printf("  speedup: median of the pairs %.2f (from %.2f to %.2f), fastest against fastest %.2f\n", median,
              ratios.front(), ratios.back(), serial / parallel);
  std::printf("  target 1.8 on 2 threads of 2 cores; summaries %s\n", same ? "identical" : "DIFFER");
  return same ? 0 : 1;
}
