// N independent relays in one model, each a switch part (core/switch_parts.hpp): the model of
// bench/many_relays_bench and tests/switch_parts_test.
//
//   x_i' = -sign(x_i - c) + a sin((i + 1) t),   c = 0.05, a = 0.1,   i = 0 .. N-1
//
// written with sigma_i (the part's state) in place of the sign. From x_i(0) > c each relay
// falls (x_i' <= -1 + a < 0) and reaches c at the root t_i of
//   x_i(0) - t + a (1 - cos((i + 1) t)) / (i + 1) = c,
// which the function is monotone through, so bisection finds it (here in long double). Below
// c the field drives back up (x_i' >= 1 - a > 0): the relay slides on x_i = c from t_i on, with
// sigma_eq = a sin((i + 1) t) in [-a, a], for ever: exactly one event per relay and no
// chattering. Written as one automaton the same model needs 2^N modes.
//
// x_i(0) pseudo-random in [0.3, 1.3) from a fixed seed (std::mt19937_64's sequence is fixed by
// the standard): the arrivals spread over about [0.25, 1.25] s in no pattern.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/core/switch_parts.hpp"

namespace many_relays {

inline constexpr double kLevel = 0.05;     // c
inline constexpr double kAmplitude = 0.1;  // a

inline std::vector<double> initial_states(std::size_t n) {
  std::mt19937_64 random(2026);
  std::uniform_real_distribution<double> uniform(0.3, 1.3);
  std::vector<double> x0(n);
  for (auto& x : x0) x = uniform(random);
  return x0;
}

inline hysim::Model<double> model(const std::vector<double>& x0) {
  hysim::Model<double> model;
  model.name = "many-relays";
  model.source = "N independent relays x_i' = -sign(x_i - 0.05) + 0.1 sin((i+1) t) (bench/many_relays.hpp)";
  const std::size_t n = x0.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::string state = "x";  // not "x" + ...: GCC 12's false -Wrestrict
    state += std::to_string(i);
    model.state_names.push_back(std::move(state));
  }
  model.x0 = x0;
  model.add_mode("relays", [n](double t, const double* x, double* dxdt) {
    const double* sigma = x + n;  // the parts' states follow the relays' (add_switch_parts)
    for (std::size_t i = 0; i < n; ++i) dxdt[i] = -sigma[i] + kAmplitude * std::sin(double(i + 1) * t);
  }, "every relay on its own side or sliding");
  std::vector<hysim::SwitchPart<double>> parts;
  for (std::size_t i = 0; i < n; ++i) {
    hysim::SwitchPart<double> part;
    part.name = "relay";
    part.name += std::to_string(i);
    part.surface = [i](double, const double* x) { return x[i] - kLevel; };
    part.rate = [i](double t, const double*, double sigma) { return -sigma + kAmplitude * std::sin(double(i + 1) * t); };
    part.reads = {i};
    parts.push_back(std::move(part));
  }
  hysim::add_switch_parts(model, std::move(parts));
  model.finalize();
  return model;
}

// t_i: the root of x_i(0) - t + a (1 - cos((i+1) t)) / (i+1) - c by bisection in long double
// on [0, 2 x_i(0)] (the left side falls at rate >= 1 - a).
inline long double arrival(double x0, std::size_t i) {
  const long double k = static_cast<long double>(i + 1), a = kAmplitude, c = kLevel;
  const auto g = [&](long double t) { return static_cast<long double>(x0) - t + a * (1 - std::cos(k * t)) / k - c; };
  long double lo = 0, hi = 2 * static_cast<long double>(x0);
  for (int iteration = 0; iteration < 200 && lo < hi; ++iteration) {
    const long double mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) break;
    (g(mid) > 0 ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace many_relays
