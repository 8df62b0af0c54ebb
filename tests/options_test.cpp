// Input validation: SimulationOptions::validate, the Simulator's own checks (t_end, solver),
// ParameterValues (names, malformed values, presets) and parse_decimal's correct rounding in
// the wide types.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/simulator.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::contains;

// 'text', as the messages quote names and values.
std::string quoted(const char* text) {
  std::string out(1, '\'');
  out += text;
  out += '\'';
  return out;
}

// The message of the InvalidArgument that f throws, or a marker when it throws nothing.
std::string invalid_argument_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "<no InvalidArgument thrown>";
}

std::string validate_message(const std::function<void(SimulationOptions&)>& change) {
  SimulationOptions options;
  change(options);
  return invalid_argument_message([&] { options.validate(); });
}

// The defaults are valid.
TEST(SimulationOptions, DefaultsValidate) {
  const SimulationOptions options;
  EXPECT_NO_THROW(options.validate());
}

// Each broken constraint throws InvalidArgument naming its field.
TEST(SimulationOptions, EachInvalidFieldIsNamed) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* field;
    std::function<void(SimulationOptions&)> change;
  };
  const std::vector<Case> cases = {
      {"rtol", [](SimulationOptions& o) { o.rtol = -1e-6; }},
      {"rtol", [](SimulationOptions& o) { o.rtol = 0.0; }},
      {"rtol", [nan](SimulationOptions& o) { o.rtol = nan; }},
      {"atol", [](SimulationOptions& o) { o.atol = -1e-9; }},
      {"atol", [](SimulationOptions& o) { o.atol = 0.0; }},
      {"atol", [inf](SimulationOptions& o) { o.atol = inf; }},
      {"t_end", [nan](SimulationOptions& o) { o.t_end = nan; }},
      {"t_end", [inf](SimulationOptions& o) { o.t_end = inf; }},
      {"max_step", [](SimulationOptions& o) { o.max_step = -0.1; }},
      {"min_step", [](SimulationOptions& o) { o.min_step = -0.1; }},
      {"initial_step", [](SimulationOptions& o) { o.initial_step = -0.1; }},
      {"fixed_step", [](SimulationOptions& o) { o.fixed_step = 0.0; }},
      {"fixed_step", [](SimulationOptions& o) { o.fixed_step = -1e-3; }},
      {"event_tolerance", [](SimulationOptions& o) { o.event_tolerance = -1e-12; }},
      {"chain_limit", [](SimulationOptions& o) { o.chain_limit = 0; }},
      {"chain_limit", [](SimulationOptions& o) { o.chain_limit = -3; }},
      {"event_limit", [](SimulationOptions& o) { o.event_limit = 0; }},
  };
  for (const auto& c : cases) {
    const std::string message = validate_message(c.change);
    EXPECT_TRUE(contains(message, std::string("option ") + c.field)) << c.field;
  }
}

// min_step > max_step is reported with both names in the constraint; max_step = 0 means
// unlimited, so any min_step is then allowed.
TEST(SimulationOptions, MinStepAboveMaxStep) {
  const std::string message = validate_message([](SimulationOptions& o) {
    o.max_step = 1e-3;
    o.min_step = 1e-2;
  });
  EXPECT_TRUE(contains(message, "min_step"));
  EXPECT_TRUE(contains(message, "max_step"));
  SimulationOptions unlimited;
  unlimited.max_step = 0.0;
  unlimited.min_step = 10.0;
  EXPECT_NO_THROW(unlimited.validate());
  SimulationOptions equal;
  equal.max_step = 1e-3;
  equal.min_step = 1e-3;
  EXPECT_NO_THROW(equal.validate());
}

// Boundary values that are allowed: a tiny atol, event_tolerance = 0, chain_limit = 1,
// event_limit = 1, a negative t_end (checked against t0 by the Simulator, not here).
// atol = 0 is not: the error weight atol + rtol |x| vanishes where a state is 0, and the
// step-size control divides by it (bs3 and rosenbrock4 then never ended).
TEST(SimulationOptions, BoundaryValuesAreAccepted) {
  SimulationOptions options;
  options.atol = 1e-300;
  options.event_tolerance = 0.0;
  options.chain_limit = 1;
  options.event_limit = 1;
  options.t_end = -5.0;
  EXPECT_NO_THROW(options.validate());
}

// A one-mode model x' = 0, for the Simulator's own checks.
Model<double> still_model(double t0) {
  Model<double> model;
  model.name = "still";
  model.state_names = {"x"};
  model.t0 = t0;
  model.x0 = {0.0};
  model.add_mode("only", [](double, const double*, double* dxdt) { dxdt[0] = 0; });
  model.finalize();
  return model;
}

// The Simulator rejects t_end <= t0 with InvalidArgument naming t_end (and t0).
TEST(Simulator, RejectsEndNotAfterStart) {
  for (const auto& [t0, t_end] : std::vector<std::pair<double, double>>{{0.0, 0.0}, {0.0, -1.0}, {2.0, 1.0}, {2.0, 2.0}}) {
    const Model<double> model = still_model(t0);
    SimulationOptions options;
    options.t_end = t_end;
    const std::string message = invalid_argument_message([&] { Simulator<double> simulator(model, options); });
    EXPECT_TRUE(contains(message, "t_end")) << t0 << " " << t_end;
    EXPECT_TRUE(contains(message, "t0")) << t0 << " " << t_end;
  }
  SimulationOptions options;
  options.t_end = 2.5;
  const Model<double> model = still_model(2.0);
  EXPECT_NO_THROW(Simulator<double>(model, options));
}

// An unknown solver name throws InvalidArgument naming it and listing every known solver.
TEST(Simulator, RejectsUnknownSolver) {
  const Model<double> model = still_model(0.0);
  SimulationOptions options;
  options.solver = "nope";
  const std::string message = invalid_argument_message([&] { Simulator<double> simulator(model, options); });
  EXPECT_TRUE(contains(message, "'nope'"));
  EXPECT_TRUE(contains(message, "dopri5"));
  EXPECT_TRUE(contains(message, "rk4"));
  EXPECT_TRUE(contains(message, "euler"));
}

// Invalid options reach the Simulator constructor as InvalidArgument too (it validates).
TEST(Simulator, ValidatesItsOptions) {
  const Model<double> model = still_model(0.0);
  SimulationOptions options;
  options.rtol = -1.0;
  const std::string message = invalid_argument_message([&] { Simulator<double> simulator(model, options); });
  EXPECT_TRUE(contains(message, "rtol"));
}

ParameterValues demo_values() {
  return ParameterValues("demo", {{"kp", "0.1", "gain"}, {"u", "1", "setpoint"}});
}

// An unknown parameter name throws InvalidArgument naming the parameter, the model and the
// known names; the values are unchanged.
TEST(ParameterValues, RejectsUnknownNames) {
  ParameterValues values = demo_values();
  const std::string message = invalid_argument_message([&] { values.set("nope", "1"); });
  EXPECT_TRUE(contains(message, "'nope'"));
  EXPECT_TRUE(contains(message, "'demo'"));
  EXPECT_TRUE(contains(message, "kp"));
  EXPECT_TRUE(contains(message, "u"));
  EXPECT_EQ(values.text("kp"), "0.1");
  EXPECT_TRUE(contains(invalid_argument_message([&] { (void)values.text("nope"); }), "'nope'"));
}

// Malformed values ("abc", "1e", "", "inf", "nan", trailing junk) throw InvalidArgument naming
// the value, the parameter and the model, and leave the old value in place.
TEST(ParameterValues, RejectsMalformedValues) {
  for (const char* text : {"abc", "1e", "", "inf", "nan", "-inf", "1.5x", "1 ", "1e99999"}) {
    ParameterValues values = demo_values();
    const std::string message = invalid_argument_message([&] { values.set("kp", text); });
    EXPECT_TRUE(contains(message, quoted(text))) << text;
    EXPECT_TRUE(contains(message, "parameter 'kp'")) << text;
    EXPECT_TRUE(contains(message, "model 'demo'")) << text;
    EXPECT_EQ(values.text("kp"), "0.1") << text;
  }
}

// Well-formed values are kept as text and parsed in the run's type.
TEST(ParameterValues, AcceptsNumbersAndParsesThemPerType) {
  ParameterValues values = demo_values();
  values.set("kp", "0.25");
  values.set_assignment("u=-3e2");
  EXPECT_EQ(values.text("kp"), "0.25");
  EXPECT_EQ(values.get<double>("kp"), 0.25);
  EXPECT_EQ(values.get<double>("u"), -300.0);
  EXPECT_EQ(values.get<long double>("u"), -300.0L);
  ASSERT_EQ(values.values().size(), 2u);
  EXPECT_EQ(values.values()[0], (std::pair<std::string, std::string>{"kp", "0.25"}));
  EXPECT_EQ(values.values()[1], (std::pair<std::string, std::string>{"u", "-3e2"}));
}

// NAME=VALUE assignments without a name or an '=' are rejected, naming the assignment.
TEST(ParameterValues, RejectsMalformedAssignments) {
  ParameterValues values = demo_values();
  EXPECT_TRUE(contains(invalid_argument_message([&] { values.set_assignment("kp"); }), "'kp'"));
  EXPECT_TRUE(contains(invalid_argument_message([&] { values.set_assignment("=1"); }), "'=1'"));
  EXPECT_TRUE(contains(invalid_argument_message([&] { values.set_assignment("kp=abc"); }), "'abc'"));
  EXPECT_TRUE(contains(invalid_argument_message([&] { values.set_assignment("nope=1"); }), "'nope'"));
}

// Presets set their values; an unknown preset throws naming it, the model and the known ones.
TEST(ParameterValues, Presets) {
  const std::vector<Preset> presets = {{"fast", "a faster gain", {{"kp", "0.5"}}}};
  ParameterValues values = demo_values();
  values.apply_preset(presets, "fast");
  EXPECT_EQ(values.text("kp"), "0.5");
  const std::string message = invalid_argument_message([&] { values.apply_preset(presets, "slow"); });
  EXPECT_TRUE(contains(message, "'slow'"));
  EXPECT_TRUE(contains(message, "'demo'"));
  EXPECT_TRUE(contains(message, "fast"));
  EXPECT_TRUE(contains(invalid_argument_message([&] { values.apply_preset({}, "any"); }), "known: none"));
}

// parse_decimal<float128>("0.1") is the binary128 number nearest to 1/10 (computed as
// float128(1)/10, a correctly rounded division), not the double 0.1 widened, which is
// 5.55e-18 away from 1/10.
TEST(ParseDecimal, Float128IsNearestToTheDecimal) {
  const float128 x = parse_decimal<float128>("0.1", "test");
  const float128 tenth = float128(1) / 10;
  EXPECT_TRUE(x != float128(0.1));
  EXPECT_TRUE(abs(x - tenth) < float128(1e-34));
  EXPECT_TRUE(x == tenth);
  EXPECT_TRUE(abs(float128(0.1) - tenth) > float128(5e-18));
  EXPECT_TRUE(parse_decimal<float128>("1e-3", "test") == float128(1) / 1000);
  EXPECT_TRUE(parse_decimal<float128>("-2.5", "test") == float128(-2.5));
}

// long double parses to the long double nearest the decimal as well.
TEST(ParseDecimal, LongDoubleIsNearestToTheDecimal) {
  EXPECT_EQ(parse_decimal<long double>("0.1", "test"), 1.0L / 10.0L);
  EXPECT_NE(parse_decimal<long double>("0.1", "test"), static_cast<long double>(0.1));
  EXPECT_EQ(parse_decimal<double>("0.1", "test"), 0.1);
}

// Every scalar type rejects the same malformed texts, naming what was being parsed.
TEST(ParseDecimal, RejectsMalformedTextInEveryType) {
  for (const char* text : {"abc", "1e", "", "inf", "nan", "0.1.2"}) {
    EXPECT_TRUE(contains(invalid_argument_message([&] { (void)parse_decimal<double>(text, "the thing"); }),
                         "the thing"))
        << text;
    EXPECT_TRUE(contains(invalid_argument_message([&] { (void)parse_decimal<long double>(text, "the thing"); }),
                         "the thing"))
        << text;
    EXPECT_TRUE(contains(invalid_argument_message([&] { (void)parse_decimal<float128>(text, "the thing"); }),
                         "the thing"))
        << text;
  }
}

// parse_scalar_kind knows the three --scalar names and rejects others, naming them.
TEST(ParseScalarKind, NamesAndErrors) {
  EXPECT_EQ(parse_scalar_kind("double"), ScalarKind::kDouble);
  EXPECT_EQ(parse_scalar_kind("long-double"), ScalarKind::kLongDouble);
  EXPECT_EQ(parse_scalar_kind("float128"), ScalarKind::kFloat128);
  for (ScalarKind kind : {ScalarKind::kDouble, ScalarKind::kLongDouble, ScalarKind::kFloat128}) {
    EXPECT_EQ(parse_scalar_kind(scalar_name(kind)), kind);
  }
  const std::string message = invalid_argument_message([] { (void)parse_scalar_kind("quad"); });
  EXPECT_TRUE(contains(message, "'quad'"));
  EXPECT_TRUE(contains(message, "long-double"));
}

}  // namespace
}  // namespace hysim
