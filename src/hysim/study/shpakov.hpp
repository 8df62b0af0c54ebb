// `hysim reproduce shpakov` (hysim/study/shpakov.cpp): the numbers 000-002 print, each beside our
// rule interpreter's value, the engine's value and an exact or independent one.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hysim::study {

struct ShpakovRow {
  std::string source;     // "002, Table 1"
  std::string quantity;   // what the number is, with its unit
  std::string published;  // as printed
  std::optional<double> interpreter, engine, exact;
  std::string note;

  // published / exact - 1 when the published value is a number and an exact one exists.
  std::optional<double> published_deviation() const;
};

// The exact references of 002's pendulums (not the tables: the equations of motion).
// The mathematical pendulum's period from theta0: 4 sqrt(L/g) K(sin(theta0/2)).
double pendulum_period(double L, double g, double degrees);
// A point bob m on a rigid rod L hung from a cart M that rolls freely (Lagrange's equations,
// RK4 at h = 1e-5 over 10 s): the mean period of the angle from its zero crossings.
std::optional<double> cart_period(double M, double m, double L, double g, double degrees);
// The pendulum (L0 = 2 m, m = 1 kg, g = 9.81) on a thread of compliance c, in the limit of
// 002's Fig. 7 rules: L = (L0 + c m g cos)/(1 - c m omega^2), omega' = -g sin/L (RK4, 1e-4).
std::optional<double> thread_period(double degrees, double compliance);

// Runs the shipped tables (models/rules/ under the working directory, else the installed
// copy); a few seconds.
std::vector<ShpakovRow> shpakov_rows();

}  // namespace hysim::study
