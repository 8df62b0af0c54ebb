// The thermostat of examples/thermostat.hym written in C++ against the installed library
// (docs/library.md), then the same model loaded from its file: both must switch at the
// closed-form times t1 = ln((T0 - T_a)/(T_low - T_a))/k and t2 = t1 + ln((T_low - T_on)/(T_high - T_on))/k,
// T_on = T_a + q/k; then a sweep of the file over T_low (the study layer, hysim/study/sweep.hpp),
// each run switching on at its t1. Exit status 0 when they do.
#include <cmath>
#include <cstdio>
#include <vector>

#include "hysim/lang/build.hpp"
#include "hysim/simulator.hpp"
#include "hysim/study/sweep.hpp"

namespace {

constexpr double k = 0.1, T_a = 5, q = 3, T_low = 19, T_high = 21, T0 = 20;

// Mosterman's 5-tuple by hand: two modes, two guards with their rates, no reset.
hysim::Model<double> thermostat() {
  using hysim::Guard;
  using hysim::Relation;
  hysim::Model<double> model;
  model.name = "thermostat";
  model.state_names = {"T"};
  model.x0 = {T0};
  model.add_mode("off", [](double, const double* x, double* dxdt) { dxdt[0] = -(k * (x[0] - T_a)); });
  model.add_mode("on", [](double, const double* x, double* dxdt) { dxdt[0] = q - k * (x[0] - T_a); });
  const hysim::EventRate<double> rate = [](double, const double*, const double* f) { return f[0]; };
  model.add_transition("off", "on", "switch_on",
                       Guard<double>::atom("T - T_low", [](double, const double* x) { return x[0] - T_low; },
                                           Relation::kLessEqual, rate));
  model.add_transition("on", "off", "switch_off",
                       Guard<double>::atom("T - T_high", [](double, const double* x) { return x[0] - T_high; },
                                           Relation::kGreaterEqual, rate));
  model.finalize();
  return model;
}

// The first event times of a run to t = 3.
class Times final : public hysim::Observer<double> {
 public:
  void on_event(const hysim::EventRecord<double>& r) override { t.push_back(r.t); }
  std::vector<double> t;
};

bool check(const char* what, const hysim::Model<double>& model) {
  hysim::SimulationOptions options;
  options.t_end = 3;
  options.rtol = 1e-12;
  options.atol = 1e-12;
  hysim::Simulator<double> simulator(model, options);
  Times times;
  const hysim::RunResult<double> result = simulator.run(&times);
  const double T_on = T_a + q / k;
  const double t1 = std::log((T0 - T_a) / (T_low - T_a)) / k;
  const double t2 = t1 + std::log((T_low - T_on) / (T_high - T_on)) / k;
  const bool ok = times.t.size() == 2 && std::abs(times.t[0] - t1) < 1e-9 && std::abs(times.t[1] - t2) < 1e-9;
  std::printf("%s: %s; events at %.15f and %.15f (closed form %.15f, %.15f): %s\n", what, result.message.c_str(),
              times.t.size() > 0 ? times.t[0] : 0.0, times.t.size() > 1 ? times.t[1] : 0.0, t1, t2,
              ok ? "ok" : "WRONG");
  return ok;
}

// Three runs of the model file with T_low = 18, 19, 19.5: the first event of each at
// t1 = ln((T0 - T_a)/(T_low - T_a))/k.
bool sweep() {
  hysim::study::SweepRequest request;
  request.choice.model = HYSIM_DATA_DIR "/examples/thermostat.hym";
  request.choice.params = {"T_low=18,19,19.5"};
  request.options.t_end = 3;
  request.options.rtol = 1e-12;
  request.options.atol = 1e-12;
  int runs = 0, right = 0;
  hysim::study::run_sweep(request, [](const hysim::study::SweepColumns&) {}, [&](hysim::study::SweepRow&& row) {
    const double t1 = std::log((T0 - T_a) / (row.swept[0].value - T_a)) / k;
    ++runs;
    right += row.event_times[0].known() && std::abs(row.event_times[0].value - t1) < 1e-9 ? 1 : 0;
  });
  const bool ok = runs == 3 && right == 3;
  std::printf("sweep over T_low: %d runs, %d switching on at the closed-form t1: %s\n", runs, right, ok ? "ok" : "WRONG");
  return ok;
}

}  // namespace

int main() {
  const bool by_hand = check("C++ model", thermostat());
  const hysim::ModelEntry file = hysim::lang::load_model_file(HYSIM_DATA_DIR "/examples/thermostat.hym");
  const bool from_file = check("model file", file.make<double>(file.default_values()));
  const bool swept = sweep();
  return by_hand && from_file && swept ? 0 : 1;
}
