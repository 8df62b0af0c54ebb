// The starting-step estimate of Hairer, Norsett & Wanner, Solving ODE I, section II.4
// (one extra field evaluation), used for the first step of a run and after a Zeno
// continuation when no initial_step is given.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "hysim/solvers/stepper.hpp"

namespace hysim {

// At (t0, x0) with f0 = f(t0, x0), for a method of order p and tolerances rtol, atol_j:
//   d0 = ||x0||, d1 = ||f0|| (weighted RMS norms, weights atol_j + rtol |x0_j|)
//   h0 = 0.01 d0 / d1 (1e-6 when either is tiny), at most t_end - t0
//   d2 = ||f(t0 + h0, x0 + h0 f0) - f0|| / h0
//   h1 = (0.01 / max(d1, d2))^(1/(p+1))  (max(1e-6, 1e-3 h0) when both are tiny)
//   h  = min(100 h0, h1)
// `x1` and `f1` are scratch of n values each.
template <class S>
S starting_step(const Rhs<S>& rhs, S t0, const S* x0, const S* f0, std::size_t n, S t_end,
                const StepperTolerances<S>& tolerances, int order, S* x1, S* f1) {
  using std::abs;
  using std::max;
  using std::min;
  using std::pow;
  using std::sqrt;
  const auto weight = [&](std::size_t j) { return tolerances.atol_at(j) + tolerances.rtol * abs(x0[j]); };
  S d0 = 0, d1 = 0;
  for (std::size_t j = 0; j < n; ++j) {
    d0 += (x0[j] / weight(j)) * (x0[j] / weight(j));
    d1 += (f0[j] / weight(j)) * (f0[j] / weight(j));
  }
  d0 = sqrt(d0 / S(n));
  d1 = sqrt(d1 / S(n));
  S h0 = (d0 < S(1e-5) || d1 < S(1e-5)) ? S(1e-6) : S(0.01) * d0 / d1;
  h0 = min(h0, t_end - t0);
  for (std::size_t j = 0; j < n; ++j) x1[j] = x0[j] + h0 * f0[j];
  rhs(t0 + h0, x1, f1);
  S d2 = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const S df = (f1[j] - f0[j]) / weight(j);
    d2 += df * df;
  }
  d2 = sqrt(d2 / S(n)) / h0;
  const S dmax = max(d1, d2);
  const S h1 = dmax <= S(1e-15) ? max(S(1e-6), h0 * S(1e-3)) : pow(S(0.01) / dmax, S(1) / S(order + 1));
  return min(S(100) * h0, h1);
}

}  // namespace hysim
