// How a run of N independent relays grows with N (a scale target): each relay a switch part
// (core/switch_parts.hpp), so the model has N discrete states instead of 2^N modes.
//
//   build/bench/many_relays_bench [--n 10,100,200,1000] [--strategies gamma-refine,cvode]
//                                 [--t-end 1.5] [--rtol 1e-12]
//
// The model (bench/many_relays.hpp): x_i' = -sign(x_i - 0.05) + 0.1 sin((i+1) t), x_i(0)
// pseudo-random in [0.3, 1.3); each relay reaches 0.05 once, at a root computed by bisection
// in long double, and slides there to the end. Per N and strategy: events (exactly N when no
// relay chatters), relays sliding at the end, max |t - t_i| over the arrivals, max |x_i - 0.05|
// at the end, steps, field and guard evaluations per step, microseconds per step and per
// relay, and a least-squares fit of the time per step, a + b N. Counts are exact; times are
// from one run on a shared machine.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "many_relays.hpp"
#if HYSIM_HAVE_CVODE
#include "hysim/peers/peers.hpp"
#endif
#include "hysim/simulator.hpp"

namespace {

using namespace hysim;

struct Arrivals final : public Observer<double> {
  std::size_t n = 0;
  const std::vector<double>* x0 = nullptr;
  std::int64_t events = 0, not_sliding = 0;
  double worst = 0;
  void on_event(const EventRecord<double>& r) override {
    ++events;
    const std::size_t i = std::stoul(std::string(r.guard.substr(5)));
    if (r.x_post[n + i] != 0.0) ++not_sliding;
    worst = std::max(worst, std::abs(r.t - static_cast<double>(many_relays::arrival((*x0)[i], i))));
  }
};

struct Row {
  std::size_t n = 0;
  double us_per_step = 0;
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr, "many_relays_bench: %s\nusage: many_relays_bench [--n 10,100,200,1000] "
                       "[--strategies gamma-refine,cvode] [--t-end 1.5] [--rtol 1e-12]\n", message.c_str());
  std::exit(2);
}

Row measure(std::size_t n, const std::string& strategy, double t_end, double rtol) {
  const auto x0 = many_relays::initial_states(n);
  const Model<double> model = many_relays::model(x0);
  SimulationOptions options;
  options.t_end = t_end;
  options.rtol = rtol;
  options.atol = rtol * 1e-2;
  options.strategy = strategy;
  options.event_limit = 100 * static_cast<std::int64_t>(n) + 100;
  Arrivals arrivals;
  arrivals.n = n;
  arrivals.x0 = &x0;
  Simulator<double> simulator(model, options);
  const auto start = std::chrono::steady_clock::now();
  const RunResult<double> result = simulator.run(&arrivals);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t sliding = 0;
  double off = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (result.x[n + i] == 0.0) ++sliding;
    off = std::max(off, std::abs(result.x[i] - many_relays::kLevel));
  }
  const auto& s = result.stats;
  const double steps = static_cast<double>(s.steps_accepted + s.steps_rejected);
  std::printf("%6zu  %-13s %-10s %7lld %7zu %9.1e %9.1e %8lld %8.1f %10.1f %9.1f %9.1f %8.3f\n", n, strategy.c_str(),
              run_reason_name(result.reason), static_cast<long long>(arrivals.events), sliding, arrivals.worst, off,
              static_cast<long long>(steps), static_cast<double>(s.rhs_evals) / steps,
              static_cast<double>(s.guard_evals) / steps, 1e6 * seconds / steps, 1e6 * seconds / double(n), seconds);
  std::fflush(stdout);
  if (arrivals.not_sliding != 0) std::printf("        %lld relays did not slide on arrival\n", static_cast<long long>(arrivals.not_sliding));
  return {n, 1e6 * seconds / steps};
}

// Least squares t = a + b N over the rows.
void fit(const std::vector<Row>& rows, const std::string& strategy) {
  if (rows.size() < 2) return;
  double sn = 0, st = 0, snn = 0, snt = 0;
  for (const auto& r : rows) {
    sn += double(r.n);
    st += r.us_per_step;
    snn += double(r.n) * double(r.n);
    snt += double(r.n) * r.us_per_step;
  }
  const double m = double(rows.size()), b = (m * snt - sn * st) / (m * snn - sn * sn), a = (st - b * sn) / m;
  std::printf("fit %s: us/step = %.2f + %.4f N (%.1f ns per relay per step)\n", strategy.c_str(), a, b, 1e3 * b);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::size_t> sizes = {10, 100, 200, 1000};
    std::vector<std::string> strategies = {"gamma-refine"};
    double t_end = 1.5, rtol = 1e-12;
    for (int a = 1; a < argc; ++a) {
      const std::string arg = argv[a];
      if (a + 1 >= argc) usage(std::string("option ").append(arg).append(" needs a value"));
      const char* value = argv[++a];
      if (arg == "--n") {
        sizes.clear();
        for (const auto& item : bench::split(value)) sizes.push_back(static_cast<std::size_t>(bench::positive("--n", item.c_str(), usage)));
      } else if (arg == "--strategies") {
        strategies = bench::split(value);
      } else if (arg == "--t-end") {
        t_end = bench::positive(arg, value, usage);
      } else if (arg == "--rtol") {
        rtol = bench::positive(arg, value, usage);
      } else {
        usage(std::string("unknown option ").append(arg));
      }
    }
#if HYSIM_HAVE_CVODE
    register_peers();
#endif
    std::printf("%6s  %-13s %-10s %7s %7s %9s %9s %8s %8s %10s %9s %9s %8s\n", "N", "strategy", "reason", "events",
                "sliding", "max|dt|", "max|dx|", "steps", "f/step", "guard/step", "us/step", "us/relay", "s");
    for (const auto& strategy : strategies) {
      std::vector<Row> rows;
      for (std::size_t n : sizes) rows.push_back(measure(n, strategy, t_end, rtol));
      fit(rows, strategy);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "many_relays_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
