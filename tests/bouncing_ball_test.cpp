// The bouncing ball against its closed form: t_1 = sqrt(2 y0/g), t_{k+1} = t_k + 2 e^k v_1/g.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "test_support.hpp"

namespace hysim {
namespace {

template <class S>
class BouncingBallTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(BouncingBallTest, Scalars);

// The first 10 impact times match the closed form to 1e-12 relative in every scalar type
// (the flight is a parabola, which Dormand-Prince and its dense output reproduce exactly).
TYPED_TEST(BouncingBallTest, FirstTenImpactsMatchClosedForm) {
  using S = TypeParam;
  using std::sqrt;
  const Model<S> model = testing::catalog_model<S>("bouncing-ball");
  SimulationOptions options;
  options.t_end = 12.0;  // the 10th impact is at 11.32 s; the impacts accumulate at 12.85 s (Zeno)
  const auto run = testing::collect(model, options);
  ASSERT_GE(run.rows.size(), 10u);

  const long double g = 9.81L, e = 0.8L, y0 = 10.0L;
  const long double v1 = std::sqrt(2.0L * g * y0);
  long double t_exact = v1 / g;
  long double speed = v1;
  long double worst = 0;
  for (std::size_t k = 0; k < 10; ++k) {
    const auto& row = run.rows[k];
    EXPECT_EQ(row.guard, "impact");
    EXPECT_EQ(row.kind, TransitionClass::kInterior);
    const long double t = static_cast<long double>(row.t);
    worst = std::max(worst, std::fabs(t - t_exact) / t_exact);
    EXPECT_LT(std::fabs(t - t_exact) / t_exact, 1e-12L) << "impact " << k + 1 << " at t = " << t;
    // One-sided: the pre-impact height is still >= 0 and the ball leaves upward.
    EXPECT_GE(row.x_pre[0], S(0));
    EXPECT_GT(row.x_post[1], S(0));
    speed *= e;
    t_exact += 2.0L * speed / g;
  }
  std::cout << "[bouncing-ball " << scalar_name(scalar_kind_of<S>()) << "] first 10 impacts: max relative time error "
            << static_cast<double>(worst) << "\n";
}

}  // namespace
}  // namespace hysim
