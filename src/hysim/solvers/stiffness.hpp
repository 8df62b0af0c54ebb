// Automatic stiffness detection for the explicit Runge-Kutta solvers, as Hairer's codes dopri5.f
// and dop853.f do it (E. Hairer, G. Wanner, Solving Ordinary Differential Equations II, 2nd ed.,
// Section IV.2, on the automatic detection of stiffness; the codes are those of E. Hairer,
// S. P. Norsett, G. Wanner, Solving Ordinary Differential Equations I, 2nd ed., appendix).
//
// The estimate: two evaluations of the field at the step's end t + h, at the new solution x1
// (f1 = f(t + h, x1), the next step's first stage) and at the argument y of a stage with node
// c = 1 (k = f(t + h, y)), give
//   h |lambda| ~ h ||f1 - k|| / ||x1 - y||       (Euclidean norms),
// the step times the field's dominant eigenvalue along x1 - y (a power iteration of one step).
// Where it exceeds the bound of the method's stability region on the negative real axis (3.25
// for dopri5, 6.1 for dop853, the constants of the codes), the step is held there by stability,
// not by accuracy. stiffness_ratio() returns h |lambda| / bound.
//
// The decision (StiffnessDetector): the test runs after every 1000th accepted step, and after
// every accepted step while suspect; a step with ratio > 1 makes it suspect and counts; 15 of
// them (with fewer than 6 in a row below 1 in between, which clear the count) declare
// stiffness. The codes then print "the problem seems to become stiff"; hysim's loop says it
// once per run (RunResult::warnings), naming the stiff solvers, and goes on.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace hysim {

namespace solvers {

// h ||f1 - k|| / ||x1 - y|| / bound for n components; 0 when x1 = y (nothing to estimate).
template <class S>
S stiffness_ratio_of(S h, const S* x1, const S* f1, const S* y, const S* k, std::size_t n, double bound) {
  using std::abs;
  using std::sqrt;
  S numerator = S(0), denominator = S(0);
  for (std::size_t i = 0; i < n; ++i) {
    const S df = f1[i] - k[i];
    const S dx = x1[i] - y[i];
    numerator += df * df;
    denominator += dx * dx;
  }
  if (!(denominator > S(0))) return S(0);
  return abs(h) * sqrt(numerator / denominator) / S(bound);
}

inline constexpr double kDopri5StabilityBound = 3.25;  // dopri5.f: HLAMB > 3.25
inline constexpr double kDop853StabilityBound = 6.1;   // dop853.f: HLAMB > 6.1

}  // namespace solvers

// The counting of dopri5.f and dop853.f over the accepted steps of one run (reset() at its
// start). After each accepted step, due() says whether to ask the stepper for its ratio (one
// decrement: no call, no division otherwise), and then observe(ratio) counts it; observe()
// returns true once, on the step that declares stiffness, and the detector is silent after that.
class StiffnessDetector {
 public:
  static constexpr std::int64_t kTestEvery = 1000;  // NSTIFF
  static constexpr int kStiffSteps = 15;            // suspect steps that declare stiffness
  static constexpr int kClearingSteps = 6;          // steps in a row below the bound that clear them

  void reset() { *this = StiffnessDetector{}; }

  bool due() { return --countdown_ == 0; }

  // ratio = h |lambda| / bound of the step just accepted, on a step where due() held; NaN (no
  // estimate) counts nothing.
  bool observe(double ratio) {
    accepted_ += period_;
    if (ratio > 1.0) {
      calm_ = 0;
      if (++suspect_ == kStiffSteps) {
        declared_ = true;
        wait(kNever);
        return true;
      }
    } else if (ratio <= 1.0 && ++calm_ == kClearingSteps) {
      suspect_ = 0;
    }
    wait(suspect_ > 0 ? 1 : kTestEvery - accepted_ % kTestEvery);
    return false;
  }

  bool declared() const { return declared_; }

 private:
  static constexpr std::int64_t kNever = std::int64_t(1) << 62;

  void wait(std::int64_t steps) { countdown_ = period_ = steps; }

  std::int64_t accepted_ = 0;             // accepted steps up to the last test
  std::int64_t period_ = kTestEvery;      // steps from the last test to the next
  std::int64_t countdown_ = kTestEvery;   // steps left to the next
  int suspect_ = 0;  // IASTI
  int calm_ = 0;     // NONSTI
  bool declared_ = false;
};

}  // namespace hysim
