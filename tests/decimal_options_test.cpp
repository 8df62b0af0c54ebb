// Real options in the run's precision (run/decimal.hpp): a value given as text keeps it and
// reaches a float128 run as the binary128 number nearest to the decimal, through the C++
// API, the command line, a model file's preset and the JSON reports; a value given as a
// double is that double in every type. (tests/float128_options_test.sh: the program.)
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "apps/cli_options.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/output/run_report.hpp"
#include "hysim/run/option_table.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::contains;

// 1/10 + 1e-28: double rounds it to 0.1, binary128 (34 digits) tells it apart.
constexpr const char* kTenth = "0.1000000000000000000000000001";
// 1/1000 + 1e-28: an output step double cannot represent.
constexpr const char* kMilli = "0.0010000000000000000000000001";

float128 quad(const char* text) { return float128(std::string(text)); }  // libquadmath's own parse

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "<no InvalidArgument thrown>";
}

// Text is kept, read as its nearest double, and parsed per type; a double is S(double).
TEST(Decimal, TextIsParsedInEachScalarType) {
  SimulationOptions options;
  options.t_end = kTenth;
  EXPECT_EQ(options.t_end.text(), kTenth);
  EXPECT_EQ(double(options.t_end), 0.1);
  EXPECT_EQ(options.t_end.to<double>(), 0.1);
  EXPECT_EQ(options.t_end.to<long double>(), std::strtold(kTenth, nullptr));
  const float128 exact = options.t_end.to<float128>();
  EXPECT_TRUE(exact == quad(kTenth));
  EXPECT_TRUE(exact == parse_decimal<float128>(kTenth, "test"));
  EXPECT_TRUE(exact != quad("0.1"));        // the digits beyond double arrive
  EXPECT_TRUE(exact != float128(0.1));      // not the double widened
  std::printf("t_end = %s: in float128 %s, in double %s\n", kTenth, format_scalar(exact, 36).c_str(),
              format_scalar(double(options.t_end), 17).c_str());

  options.t_end = 0.1;  // a double again: the text is gone
  EXPECT_EQ(options.t_end.text(), "");
  EXPECT_TRUE(options.t_end.to<float128>() == float128(0.1));
  options.t_end = std::string("0.1");  // the decimal 1/10, in float128 too
  EXPECT_TRUE(options.t_end.to<float128>() == quad("0.1"));
  EXPECT_TRUE(options.t_end.to<float128>() != float128(0.1));
}

// Malformed text is refused naming it and the field; a value finite in binary128 but not in
// double is accepted, and refused only by a double run (to<double>), naming the underflow.
TEST(Decimal, RangeAndMalformedText) {
  for (const char* text : {"abc", "", " 1", "1x", "inf", "nan", "1e99999"}) {
    const std::string message = message_of([&] { (void)Decimal(text, "option t_end"); });
    EXPECT_TRUE(contains(message, std::string("'") + text + "'")) << text;
    EXPECT_TRUE(contains(message, "option t_end")) << text;
  }
  const Decimal tiny("1e-400", "option h_min");
  EXPECT_TRUE(tiny.to<float128>() > float128(0));
  EXPECT_TRUE(contains(message_of([&] { (void)tiny.to<double>("option h_min"); }), "underflows"));
}

// The reports write text that says more than the double as typed, a string, and the rest as
// numbers; both read back.
TEST(Decimal, ReportsAndOptionText) {
  SimulationOptions options;
  options.t_end = kTenth;
  options.output_step = "1e-3";  // the double's shortest decimal: a number
  options.h_min = "0.25";
  const nlohmann::json json = options_json(options);
  EXPECT_EQ(json["t_end"], kTenth);
  EXPECT_EQ(json["output_step"], 0.001);
  EXPECT_EQ(json["h_min"], 0.25);
  EXPECT_EQ(json["rtol"], 1e-6);
  EXPECT_TRUE(json["t_end"].get<Decimal>().to<float128>() == quad(kTenth));
  std::printf("options.t_end in JSON: %s\n", json["t_end"].dump().c_str());

  for (const char* text : {"0.1", "1e-1", "0.10", "-0", "100", "1e2", "0.001", "1E-3"}) {
    EXPECT_FALSE(Decimal(text).beyond_double()) << text;
  }
  for (const char* text : {kTenth, "0.1000000000000000000000000000000000000000001"}) {
    EXPECT_TRUE(Decimal(text).beyond_double()) << text;
  }
  // Options are decimal: strtod would read hexadecimal, the text is refused instead.
  for (const char* text : {"0x1p-3", "-0X10", "+0x.8"}) {
    EXPECT_THROW((void)Decimal(text, "option t_end"), InvalidArgument) << text;
  }
  EXPECT_EQ(option_text(options, *std::find_if(option_table().begin(), option_table().end(),
                                               [](const OptionInfo& i) { return std::string(i.name) == "t_end"; })),
            kTenth);
  EXPECT_EQ(Decimal(1e-6).str(), "1e-06");
}

// validate() checks a text at its own value: one that rounds onto a bound in double is not
// refused, one beyond the bound is.
TEST(Decimal, ValidateUsesTheTextsValue) {
  SimulationOptions options;
  options.rtol = "0.99999999999999999999";  // double: 1.0
  options.gamma = "0.99999999999999999999";
  options.refine_gamma = "1.99999999999999999999";
  options.h_min = "1e-400";
  EXPECT_NO_THROW(options.validate());
  options.rtol = "1.00000000000000000001";  // double: 1.0 as well
  EXPECT_TRUE(contains(message_of([&] { options.validate(); }), "option rtol = 1.00000000000000000001 violates"));
}

// The command line keeps the text of every real option.
TEST(Decimal, CommandLineKeepsTheText) {
  CLI::App app;
  SimulationOptions options;
  app::add_simulation_options(&app, &options);
  app.parse(std::string("--t-end ") + kTenth + " --output-step " + kMilli + " --rtol 1e-20", false);
  EXPECT_EQ(options.t_end.text(), kTenth);
  EXPECT_EQ(options.output_step.text(), kMilli);
  EXPECT_EQ(options.rtol.text(), "1e-20");
  EXPECT_EQ(options.max_step.text(), "");  // not given: the default double
  CLI::App bad;
  app::add_simulation_options(&bad, &options);
  try {
    bad.parse("--t-end 1.5x", false);
    ADD_FAILURE() << "--t-end 1.5x was accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_TRUE(contains(e.what(), "'1.5x'"));
  }
}

// A float128 run ends at the binary128 number nearest to the typed t_end, and samples the
// grid t0 + k output_step with the typed step: fl(k fl(step)), not k times the double step.
TEST(Decimal, Float128RunEndsAndSamplesAtTheTypedTimes) {
  const Model<float128> model = testing::catalog_model<float128>("exponential");
  SimulationOptions options;
  options.t_end = kTenth;
  options.output_step = kMilli;
  RunResult<float128> result;
  const auto run = testing::collect(model, options, /*keep_samples=*/true, &result);
  ASSERT_FALSE(result.failed()) << result.message;
  EXPECT_TRUE(result.t == quad(kTenth)) << format_scalar(result.t, 36);
  ASSERT_GE(run.samples.size(), 101u);
  EXPECT_TRUE(run.samples.back().t == quad(kTenth));
  const float128 step = quad(kMilli);
  int on_grid = 0;
  for (std::size_t i = 1; i + 1 < run.samples.size(); ++i) {
    const float128 k = round(run.samples[i].t / step);
    EXPECT_TRUE(run.samples[i].t == k * step) << i << " " << format_scalar(run.samples[i].t, 36);
    EXPECT_TRUE(run.samples[i].t != k * float128(0.001)) << i;
    ++on_grid;
  }
  EXPECT_EQ(on_grid, 99);  // k = 1 .. 99; 100 steps of 0.001000...0001 pass t_end
  std::printf("float128: t = %s, sample 50 at %s\n", format_scalar(result.t, 36).c_str(),
              format_scalar(run.samples[50].t, 36).c_str());

  // The same options in double: the double 0.1, and the double grid.
  RunResult<double> in_double;
  (void)testing::collect(testing::catalog_model<double>("exponential"), options, false, &in_double);
  EXPECT_EQ(in_double.t, 0.1);
}

// A model file's preset `t_end = ...` reaches a float128 run as typed.
TEST(Decimal, ModelFilePresetEndTime) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "hysim-decimal-preset.hym";
  {
    std::ofstream out(file);
    out << "model grow \"dy/dt = y\"\n"
        << "parameter rate = 1 \"growth rate\"\n"
        << "state y = 1\n"
        << "mode grow \"growth\" { der(y) = rate*y }\n"
        << "preset short \"to just past 1/10\" { t_end = " << kTenth << " }\n";
  }
  app::ModelChoice choice;
  choice.model = file.string();
  choice.loaded = std::make_shared<const ModelEntry>(lang::load_model_file(file.string()));
  choice.preset = "short";
  SimulationOptions options;
  options.t_end = choice.t_end_or(options.t_end);
  std::filesystem::remove(file);
  EXPECT_EQ(options.t_end.text(), kTenth);
  const Model<float128> model = choice.entry().make<float128>(choice.values());
  RunResult<float128> result;
  (void)testing::collect(model, options, false, &result);
  ASSERT_FALSE(result.failed()) << result.message;
  EXPECT_TRUE(result.t == quad(kTenth)) << format_scalar(result.t, 36);
}

}  // namespace
}  // namespace hysim
