// N independent elastic bouncing balls in one state vector, the model of
// bench/many_guards_bench and tests/quiet_atoms_test: state (h_0, v_0, ..., h_{N-1}, v_{N-1});
// one mode "flight" with h_i' = v_i, v_i' = -g; N self-transitions "bounce_i" with guard
// h_i <= 0 && v_i < 0 (exact rates v_i and -g) and reset v_i := -v_i. Each ball's bounces have
// the closed form t_k = tau_i (2k - 1), tau_i = sqrt(2 h_i(0) / g).
//
// With bound > 0 every atom gets a rate bound (Atom::rate_bound) and the state it reads
// (Atom::reads): |dh_i/dt| = |v_i| <= sqrt(2 g h_i(0)) (the energy of each ball is constant)
// and |dv_i/dt| = g, each times `bound` (1.01: 1 % wider for the integrator's energy error; a
// bound below 1 is wrong, and can hide bounces). With omega > 0 the state also holds an
// oscillator w'' = -omega^2 w, read by no guard, whose fast motion sets the steps: many steps
// between bounces, the case of many guards far from firing.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/guard.hpp"
#include "hysim/core/model.hpp"

namespace many_balls {

inline constexpr double kG = 9.81;  // [m/s^2]

inline hysim::Model<double> model(const std::vector<double>& h0, double bound = 0, double omega = 0) {
  using hysim::Guard;
  using hysim::Relation;
  hysim::Model<double> model;
  model.name = "many-balls";
  model.source = "N independent elastic bouncing balls (bench/many_balls.hpp)";
  for (std::size_t i = 0; i < h0.size(); ++i) {
    model.state_names.push_back("h" + std::to_string(i));
    model.state_names.push_back("v" + std::to_string(i));
    model.x0.push_back(h0[i]);
    model.x0.push_back(0.0);
  }
  const std::size_t size = model.state_names.size();
  if (omega > 0) {
    model.state_names.insert(model.state_names.end(), {"w", "w_dot"});
    model.x0.insert(model.x0.end(), {1.0, 0.0});
  }
  model.add_mode("flight", [size, omega](double, const double* x, double* dxdt) {
    for (std::size_t k = 0; k < size; k += 2) {
      dxdt[k] = x[k + 1];
      dxdt[k + 1] = -kG;
    }
    if (omega > 0) {
      dxdt[size] = x[size + 1];
      dxdt[size + 1] = -omega * omega * x[size];
    }
  }, "free fall of every ball");
  for (std::size_t i = 0; i < h0.size(); ++i) {
    const std::size_t h = 2 * i, v = h + 1;
    auto below = Guard<double>::atom("h" + std::to_string(i), [h](double, const double* x) { return x[h]; },
                                     Relation::kLessEqual, [h](double, const double*, const double* f) { return f[h]; });
    auto falling = Guard<double>::atom("v" + std::to_string(i), [v](double, const double* x) { return x[v]; },
                                       Relation::kLess, [v](double, const double*, const double* f) { return f[v]; });
    if (bound > 0) {
      below = std::move(below).with_rate_bound(bound * std::sqrt(2 * kG * h0[i]), {h});
      falling = std::move(falling).with_rate_bound(bound * kG, {v});
    }
    model.add_transition("flight", "flight", "bounce_" + std::to_string(i), std::move(below) && std::move(falling),
                         [v](double, const double* x, double* x_plus) { x_plus[v] = -x[v]; });
  }
  model.finalize();
  return model;
}

}  // namespace many_balls
