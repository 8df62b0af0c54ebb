// The baseline most C++ users write for a hybrid system: a plain Boost.Odeint dense-output
// Dormand-Prince loop (Ahnert & Mulansky, "Odeint - solving ordinary differential equations in
// C++", AIP Conf. Proc. 1389, 2011) that looks for a guard firing at each step's end, bisects on
// calc_state to the event tolerance, applies the reset at the bracket's fired end and restarts
// the stepper there. It reads the same Model<double> (fields, guards read literally, resets) as
// the engine and counts the same evaluations, so that bench/pwm_servo_bench compares equal work.
// It knows nothing of one-sidedness, transition classes, sliding or Zeno: an event is placed
// where the guard already holds, and a chain is at most `kChainLimit` transitions long.
#pragma once

#include <boost/numeric/odeint.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/run/result.hpp"

namespace hysim::bench {

struct NaiveEvent {
  double t = 0;
  int from = -1, to = -1;
  bool one_sided = false;  // x at t satisfies the mode left (no guard of it fires there)
};

struct NaiveRun {
  std::vector<NaiveEvent> events;
  RunStatistics stats;
};

class NaiveOdeint {
 public:
  static constexpr int kChainLimit = 16;

  explicit NaiveOdeint(const Model<double>& model) : model_(model) {}

  // From the model's initial state to t_end with the given tolerances; event times to
  // `event_tolerance` (0: until no representable time lies inside the bracket).
  NaiveRun run(double t_end, double rtol, double atol, double event_tolerance) {
    namespace odeint = boost::numeric::odeint;
    using State = std::vector<double>;
    NaiveRun out;
    stats_ = &out.stats;
    mode_ = model_.initial_mode;
    State x(model_.x0.begin(), model_.x0.end());
    State x_mid(x.size()), x_plus(x.size());
    double t = 0, dt = 1e-3;
    auto system = [this](const State& y, State& dydt, double time) {
      ++stats_->rhs_evals;
      model_.modes[static_cast<std::size_t>(mode_)].field(time, y.data(), dydt.data());
    };
    auto stepper = odeint::make_dense_output(atol, rtol, odeint::runge_kutta_dopri5<State>());
    stepper.initialize(x, t, dt);
    while (stepper.current_time() < t_end) {
      if (stepper.current_time() + stepper.current_time_step() > t_end) {
        stepper.initialize(stepper.current_state(), stepper.current_time(), t_end - stepper.current_time());
      }
      const auto [t0, t1] = stepper.do_step(system);
      ++stats_->steps_accepted;
      int k = fired(t1, stepper.current_state());
      if (k < 0) continue;
      // Bisection on the dense output: the guard does not fire at lo, fires at hi.
      double lo = t0, hi = t1;
      while (hi - lo > event_tolerance) {
        const double mid = lo + (hi - lo) / 2;
        if (!(mid > lo && mid < hi)) break;
        ++stats_->root_iterations;
        stepper.calc_state(mid, x_mid);
        const int km = fired(mid, x_mid);
        if (km >= 0) {
          hi = mid;
          k = km;
        } else {
          lo = mid;
        }
      }
      stepper.calc_state(hi, x);
      // The chain: reset, enter, and go on while a guard of the new mode fires at once.
      for (int chain = 0; k >= 0; ++chain) {
        if (chain == kChainLimit) throw std::runtime_error("naive odeint loop: a chain of more than 16 transitions");
        const auto& transition = model_.modes[static_cast<std::size_t>(mode_)].transitions[static_cast<std::size_t>(k)];
        x_plus = x;
        if (transition.reset) transition.reset(hi, x.data(), x_plus.data());
        NaiveEvent event{hi, mode_, transition.target, false};
        if (chain == 0) {
          ++stats_->events;
          out.events.push_back(event);
        }
        ++stats_->transitions;
        mode_ = transition.target;
        x = x_plus;
        k = fired(hi, x);
      }
      stepper.initialize(x, hi, stepper.current_time_step());
    }
    return out;
  }

 private:
  // The first transition of the current mode whose guard holds at (t, x), atoms read literally.
  int fired(double t, const std::vector<double>& x) {
    const auto& transitions = model_.modes[static_cast<std::size_t>(mode_)].transitions;
    for (std::size_t k = 0; k < transitions.size(); ++k) {
      const auto& atoms = transitions[k].guard.atoms();
      const bool fires = transitions[k].guard.evaluate([&](int i) {
        ++stats_->guard_evals;
        const Atom<double>& atom = atoms[static_cast<std::size_t>(i)];
        return relation_holds(atom.relation, atom.e(t, x.data()));
      });
      if (fires) return static_cast<int>(k);
    }
    return -1;
  }

  const Model<double>& model_;
  RunStatistics* stats_ = nullptr;
  int mode_ = 0;
};

}  // namespace hysim::bench
