// dy/dt = y against e^t (001, Fig. 8 reads e^3 = 20.086 off the plot).
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>

#include "test_support.hpp"

namespace hysim {
namespace {

// y(3) is within 1e-9 relative of e^3 with Dormand-Prince at rtol = 1e-10 (double).
TEST(Exponential, DoubleAtRtol1em10) {
  const Model<double> model = testing::catalog_model<double>("exponential");
  SimulationOptions options;
  options.t_end = 3.0;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  RunResult<double> result;
  testing::collect(model, options, false, &result);
  EXPECT_EQ(result.t, 3.0);
  EXPECT_LT(std::fabs(result.x[0] - std::exp(3.0)) / std::exp(3.0), 1e-9);
  std::cout << "[exponential] y(3) = " << result.x[0] << ", relative error "
            << std::fabs(result.x[0] - std::exp(3.0)) / std::exp(3.0) << "\n";
}

// The wider types reach accuracies double cannot: long double to 1e-15 at rtol = 1e-17,
// float128 to 1e-25 at rtol = 1e-28, compared with e^3 computed in the same type.
TEST(Exponential, WiderScalarsReachTighterTolerances) {
  {
    const Model<long double> model = testing::catalog_model<long double>("exponential");
    SimulationOptions options;
    options.t_end = 3.0;
    options.rtol = 1e-17;
    options.atol = 1e-19;
    RunResult<long double> result;
    testing::collect(model, options, false, &result);
    EXPECT_LT(std::fabs(result.x[0] - std::exp(3.0L)) / std::exp(3.0L), 1e-15L);
  }
  {
    const Model<float128> model = testing::catalog_model<float128>("exponential");
    SimulationOptions options;
    options.t_end = 3.0;
    options.rtol = 1e-28;
    options.atol = 1e-30;
    RunResult<float128> result;
    testing::collect(model, options, false, &result);
    const float128 exact = exp(float128(3));
    EXPECT_LT(abs(result.x[0] - exact) / exact, float128(1e-25));
  }
}

}  // namespace
}  // namespace hysim
