// The damped oscillator of 001, Figs. 4-6: the damped angular frequency 19.975 and the decay
// rate 1, measured from the simulated trajectory (not read from the model's parameters).
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <numbers>

#include "test_support.hpp"

namespace hysim {
namespace {

// Zero crossings of y1 give the period; the ratio of successive maxima gives the decay.
TEST(Oscillator, FrequencyAndDecayFromTrajectory) {
  const Model<double> model = testing::catalog_model<double>("oscillator");
  SimulationOptions options;
  options.t_end = 3.0;
  options.rtol = 1e-10;
  options.atol = 1e-10;
  options.max_step = 1e-3;
  const auto run = testing::collect(model, options, /*keep_samples=*/true);
  const auto& s = run.samples;
  ASSERT_GT(s.size(), 1000u);

  // Upward zero crossings of y1 (index 1), by linear interpolation between samples.
  std::vector<double> crossings;
  // Maxima of y1 by a parabola through three samples.
  std::vector<std::pair<double, double>> maxima;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    const double y0 = s[i - 1].x[1], y1 = s[i].x[1], y2 = s[i + 1].x[1];
    if (y0 < 0 && y1 >= 0) crossings.push_back(s[i - 1].t + (s[i].t - s[i - 1].t) * (-y0) / (y1 - y0));
    if (y1 > y0 && y1 >= y2 && s[i + 1].t - s[i].t == s[i].t - s[i - 1].t) {
      const double h = s[i].t - s[i - 1].t;
      const double denom = y0 - 2 * y1 + y2;
      const double offset = 0.5 * h * (y0 - y2) / denom;
      maxima.emplace_back(s[i].t + offset, y1 - 0.25 * (y0 - y2) * offset / h);
    }
  }
  ASSERT_GE(crossings.size(), 5u);
  ASSERT_GE(maxima.size(), 5u);
  const double period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  const double omega = 2 * std::numbers::pi / period;
  EXPECT_NEAR(omega, 19.975, 0.0005) << "damped angular frequency";

  const auto& first = maxima[1];
  const auto& last = maxima.back();
  const double decay = std::log(first.second / last.second) / (last.first - first.first);
  EXPECT_NEAR(decay, 1.0, 1e-4) << "decay rate alpha of A0 e^(-alpha t)";
  std::cout << std::setprecision(8) << "[oscillator] measured damped angular frequency " << omega << ", decay rate " << decay << "\n";
}

}  // namespace
}  // namespace hysim
