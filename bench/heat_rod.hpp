// A heat rod of n cells with a thermostat, as a model file's text: the large, stiff, sparse
// model of bench/heat_rod_bench and tests/sparse_jacobian_test. Method of lines on
//   T_t = D T_xx - b (T - T_a) + q [x < 1/10, heater on],   x in [0, 1], insulated ends,
// n cells of width 1/n (a = D n^2):
//   der(T_i) = a (T_{i-1} - 2 T_i + T_{i+1}) - b (T_i - T_a) (+ q in the heated tenth),
// with T_{-1} = T_0 and T_n = T_{n-1}. A thermostat reads the middle cell: heating -> idle when
// it reaches T_high, idle -> heating when it falls to T_low. The stiffness grows like n^2 (the
// largest eigenvalue of the stencil is about -4a), the Jacobian is tridiagonal. The peer in
// bench/peers/cvode_programs.cpp (heat_rod_cvode) writes the same equations in plain C.
//
// The exact event times (exact_events): the semi-discrete rod is linear, and its matrix (the
// stencil with insulated ends, minus b) has the cosine modes v_k(i) = cos(k pi (i + 1/2) / n)
// with eigenvalues lambda_k = -4 a sin^2(k pi / (2 n)) - b, k = 0 .. n-1 (the basis of the
// discrete cosine transform DCT-II). With u = T - T_a = sum_k c_k v_k and h_k the heater's
// component on v_k, each mode is closed-form:
//   c_k(t0 + s) = e^(lambda_k s) c_k(t0) + q h_k (e^(lambda_k s) - 1) / lambda_k  (heating; q = 0 idle),
// and the sensor's reading sum_k c_k(t) v_k(sensor) is a sum of n exponentials, whose crossings
// of the thresholds are found by scanning and bisection in long double.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace heat_rod {

inline constexpr double kD = 0.01, kB = 0.1, kQ = 5, kTa = 20, kT0 = 20, kTLow = 21, kTHigh = 22;

inline std::size_t heated_cells(std::size_t n) { return n < 10 ? 1 : n / 10; }
inline std::size_t sensor_cell(std::size_t n) { return n / 2; }

// shuffled: the states declared in the order i -> (7919 i) mod n (n not a multiple of 7919),
// the same rod whose Jacobian, in that order, is no band.
inline std::string model_text(std::size_t n, bool shuffled = false) {
  const auto cell = [](std::size_t i) {
    std::string name = "T";
    name += std::to_string(i);
    return name;
  };
  const auto number = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s += '0';
    return s;
  };
  std::string text = "model heat_rod \"a heat rod of " + std::to_string(n) + " cells with a thermostat\"\n";
  text += "parameter D = " + number(kD) + ", b = " + number(kB) + ", q = " + number(kQ) + ", T_a = " + number(kTa) +
          ", T_low = " + number(kTLow) + ", T_high = " + number(kTHigh) + "\n";
  text += "let a = D*" + std::to_string(n) + "*" + std::to_string(n) + "\n";
  text += "state ";
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = shuffled ? (7919 * k) % n : k;
    if (k > 0) text += ", ";
    text += cell(i);
    text += " = ";
    text += number(kT0);
  }
  text += "\n";
  const auto stencil = [&](std::size_t i) {
    const std::string left = cell(i == 0 ? 0 : i - 1), right = cell(i + 1 == n ? n - 1 : i + 1);
    return "a*(" + left + " - 2*" + cell(i) + " + " + right + ") - b*(" + cell(i) + " - T_a)";
  };
  text += "flow {\n";
  for (std::size_t i = 0; i < n; ++i) text += "  der(" + cell(i) + ") = " + stencil(i) + "\n";
  text += "}\nmode heating \"heater on\" {\n";
  for (std::size_t i = 0; i < heated_cells(n); ++i) text += "  der(" + cell(i) + ") = " + stencil(i) + " + q\n";
  text += "}\nmode idle \"heater off\" {}\ninitial heating\n";
  text += "heating -> idle off [" + cell(sensor_cell(n)) + " >= T_high]\n";
  text += "idle -> heating on [" + cell(sensor_cell(n)) + " <= T_low]\n";
  return text;
}

// The exact event times over [0, t_end] (see above), to about 1e-15 s: each crossing of the
// sensor's threshold is bracketed by a scan in steps of `scan` seconds (the reading is smooth;
// a crossing and return within one scan step would be missed, which the thresholds' distance
// rules out here) and bisected to the last bit of long double.
inline std::vector<long double> exact_events(std::size_t n, double t_end, double scan = 1e-2) {
  using R = long double;
  const R pi = 3.14159265358979323846264338327950288L;
  const R a = R(kD) * R(n) * R(n);
  std::vector<R> lambda(n), heater(n), sensor(n), c(n, R(0));
  const std::size_t heated = heated_cells(n), s = sensor_cell(n);
  for (std::size_t k = 0; k < n; ++k) {
    const R theta = pi * R(k) / R(n);
    const R sine = std::sin(theta / 2);
    lambda[k] = -4 * a * sine * sine - R(kB);
    const R norm2 = k == 0 ? R(n) : R(n) / 2;  // sum_i v_k(i)^2
    R projection = 0;
    for (std::size_t i = 0; i < heated; ++i) projection += std::cos(theta * (R(i) + R(0.5)));
    heater[k] = projection / norm2;
    sensor[k] = std::cos(theta * (R(s) + R(0.5)));
  }
  // The coefficients s after t0 (heating or not), and the sensor's reading of them.
  std::vector<R> at(n);
  const auto advance = [&](const std::vector<R>& from, bool heating, R dt, std::vector<R>& to) {
    for (std::size_t k = 0; k < n; ++k) {
      const R decay = std::exp(lambda[k] * dt);
      to[k] = decay * from[k] + (heating ? R(kQ) * heater[k] * (decay - 1) / lambda[k] : R(0));
    }
  };
  const auto reading = [&](const std::vector<R>& coefficients) {
    R sum = 0;
    for (std::size_t k = 0; k < n; ++k) sum += coefficients[k] * sensor[k];
    return sum + R(kTa);
  };
  std::vector<R> events;
  bool heating = true;
  R t0 = 0;
  while (true) {
    const R threshold = heating ? R(kTHigh) : R(kTLow);
    const auto past = [&](R dt) {  // the guard holds at t0 + dt
      advance(c, heating, dt, at);
      const R T = reading(at);
      return heating ? T >= threshold : T <= threshold;
    };
    R lo = 0, hi = 0;
    while (!past(hi)) {
      lo = hi;
      hi += R(scan);
      if (t0 + lo > R(t_end)) return events;
    }
    while (true) {  // lo: not yet; hi: past
      const R mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) break;
      (past(mid) ? hi : lo) = mid;
    }
    if (t0 + hi > R(t_end)) return events;
    advance(c, heating, hi, at);
    c = at;
    t0 += hi;
    events.push_back(t0);
    heating = !heating;
  }
}

}  // namespace heat_rod
