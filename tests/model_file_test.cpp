// Model files (src/hysim/lang): the twins of the catalog give the events of their C++ models
// to 4 ulps in double and float128, on native code and on the tape; the parser and resolver
// report what is wrong and where.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "hysim/lang/build.hpp"
#include "hysim/lang/spec.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::contains;

std::string shipped(const std::string& relative) { return std::string(HYSIM_SOURCE_DIR) + "/" + relative; }

// Distance in units of the last place of S between two values of S.
template <class S>
double ulps(const S& a, const S& b) {
  using std::abs;
  using boost::multiprecision::abs;
  const S scale = abs(a) > abs(b) ? abs(a) : abs(b);
  if (scale == 0) return 0;
  return to_double(abs(a - b) / (scale * machine_epsilon<S>()));
}

template <class S>
void expect_twins_on(const std::string& file, const std::string& builtin, double t_end,
                     const std::vector<std::pair<std::string, std::string>>& params,
                     const lang::NativeOptions& native) {
  std::string backend;
  const ModelEntry twin = lang::load_model_file(shipped(file), nullptr, native, &backend);
  ParameterValues values = twin.default_values();
  for (const auto& [k, v] : params) values.set(k, v);
  const Model<S> from_file = twin.make<S>(values);
  const Model<S> from_cpp = testing::catalog_model<S>(builtin, params);
  SimulationOptions options;
  options.t_end = t_end;
  const auto a = testing::collect(from_file, options);
  const auto b = testing::collect(from_cpp, options);
  ASSERT_EQ(a.rows.size(), b.rows.size()) << file << " on " << backend;
  ASSERT_FALSE(a.rows.empty());
  double worst = 0;
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    const auto& r = a.rows[i];
    const auto& s = b.rows[i];
    ASSERT_EQ(from_file.modes[static_cast<std::size_t>(r.from)].name, from_cpp.modes[static_cast<std::size_t>(s.from)].name) << i;
    ASSERT_EQ(from_file.modes[static_cast<std::size_t>(r.to)].name, from_cpp.modes[static_cast<std::size_t>(s.to)].name) << i;
    ASSERT_EQ(r.kind, s.kind) << i;
    ASSERT_EQ(r.guard, s.guard) << i;
    worst = std::max(worst, ulps(r.t, s.t));
    ASSERT_LE(ulps(r.t, s.t), 4.0) << "event " << i << " at t = " << format_scalar(s.t) << " on " << backend;
  }
  std::cout << file << " (" << scalar_name(scalar_kind_of<S>()) << ", " << backend.substr(0, backend.find(' '))
            << "): " << a.rows.size() << " rows, worst " << worst << " ulp\n";
}

// The file and the C++ model run with the same options give the same event sequence, with
// the file on native code and on the tape.
template <class S>
void expect_twins(const std::string& file, const std::string& builtin, double t_end,
                  const std::vector<std::pair<std::string, std::string>>& params = {}) {
  for (const auto backend : {lang::NativeOptions::Backend::kNative, lang::NativeOptions::Backend::kTape}) {
    lang::NativeOptions options = lang::NativeOptions::from_environment();
    options.backend = backend;
    expect_twins_on<S>(file, builtin, t_end, params, options);
  }
}

TEST(ModelFileTwins, PwmServo) {
  expect_twins<double>("models/pwm-servo.hym", "pwm-servo", 5.0);
  expect_twins<float128>("models/pwm-servo.hym", "pwm-servo", 1.0);
}

TEST(ModelFileTwins, BouncingBall) {
  expect_twins<double>("models/bouncing-ball.hym", "bouncing-ball", 20.0);
  expect_twins<float128>("models/bouncing-ball.hym", "bouncing-ball", 20.0);
}

TEST(ModelFileTwins, DragBall) {
  expect_twins<double>("models/drag-ball.hym", "drag-ball", 20.0);
  expect_twins<float128>("models/drag-ball.hym", "drag-ball", 20.0);
}

TEST(ModelFileTwins, Grazing) {
  for (const char* delta : {"0.02", "0.002", "0.2"}) {
    expect_twins<double>("models/grazing.hym", "grazing", 30.0, {{"delta", delta}});
    expect_twins<float128>("models/grazing.hym", "grazing", 10.0, {{"delta", delta}});
  }
}

}  // namespace
}  // namespace hysim
