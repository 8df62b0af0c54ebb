// The odeint program of standalone.hpp, the loop most C++ users write for a hybrid system
// (Ahnert & Mulansky, "Odeint - solving ordinary differential equations in C++", AIP Conf.
// Proc. 1389, 2011; the library's documentation, "Using steppers" and "Dense output
// steppers"): a std::array state, a system functor, make_dense_output around
// runge_kutta_dopri5, one do_step at a time; after each step the program checks its guards at
// the step's end, bisects on calc_state while the bracket still splits, applies the reset there
// (where the guard holds) and re-initializes the stepper. It knows nothing of one-sidedness or
// sliding. No hysim header is included here.
#include <boost/numeric/odeint.hpp>

#include <array>
#include <exception>

#include "pwm_logic.hpp"
#include "standalone.hpp"

namespace standalone {

namespace {

using PwmState = std::array<double, 3>;

struct PwmSystem {
  const PwmServo& p;
  const int& mode;
  long long& calls;
  void operator()(const PwmState& y, PwmState& dydt, double /*t*/) const {
    ++calls;
    dydt[pwm::kOmega] = p.k_w * pwm::pwm_output(mode);
    dydt[pwm::kPhi] = y[pwm::kOmega];
    dydt[pwm::kSaw] = 1.0;
  }
};

}  // namespace

Run pwm_servo_odeint(const PwmServo& p, const Tolerances& tol) {
  namespace odeint = boost::numeric::odeint;
  Run run;
  run.events.reserve(1 << 16);
  try {
    PwmState y{p.omega0, p.phi0, 0.0}, y_mid{};
    int mode = pwm::initial_mode(p, y.data(), run);
    PwmSystem system{p, mode, run.rhs_evals};
    auto stepper = odeint::make_dense_output(tol.atol, tol.rtol, odeint::runge_kutta_dopri5<PwmState>());
    stepper.initialize(y, 0.0, 1e-3);
    while (stepper.current_time() < tol.t_end) {
      if (stepper.current_time() + stepper.current_time_step() > tol.t_end) {
        stepper.initialize(stepper.current_state(), stepper.current_time(), tol.t_end - stepper.current_time());
      }
      const auto [t0, t1] = stepper.do_step(system);
      ++run.steps;
      int to = -1;
      ++run.guard_evals;
      if (pwm::fired(p, t1, stepper.current_state().data(), mode, &to) < 0) continue;
      // The guard does not hold at lo and holds at hi.
      double lo = t0, hi = t1;
      for (double mid = lo + (hi - lo) / 2; mid > lo && mid < hi; mid = lo + (hi - lo) / 2) {
        stepper.calc_state(mid, y_mid);
        ++run.guard_evals;
        (pwm::fired(p, mid, y_mid.data(), mode, &to) >= 0 ? hi : lo) = mid;
      }
      stepper.calc_state(hi, y);
      pwm::apply_events(p, hi, y.data(), &mode, run);
      stepper.initialize(y, hi, stepper.current_time_step());
    }
  } catch (const std::exception& e) {
    run.failure = e.what();
  }
  return run;
}

}  // namespace standalone
