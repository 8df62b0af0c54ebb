// Declared parameter ranges (core/parameters.hpp): every built-in model builds at each end of
// each range, the model files declare their twins' ranges, the model language and rule tables
// read and check them at file:line:column, and a sweep draws over them and over rtol.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/lang/build.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"
#include "hysim/rules/to_model.hpp"
#include "hysim/study/sweep.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

using testing::contains;

std::string thrown_by(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ParameterRange, TheCheckNamesTheParameterAndTheOwner) {
  EXPECT_EQ(thrown_by([] { check_parameter_range({"kp", "0.1", "", "0.05", "0.2"}, "model 'm'"); }), "");
  EXPECT_EQ(thrown_by([] { check_parameter_range({"kp", "0.1", ""}, "model 'm'"); }), "");  // none declared
  EXPECT_TRUE(contains(thrown_by([] { check_parameter_range({"kp", "0.3", "", "0.05", "0.2"}, "model 'm'"); }),
                       "parameter 'kp' of model 'm': the default 0.3 is outside [0.05, 0.2]"));
  EXPECT_TRUE(contains(thrown_by([] { check_parameter_range({"kp", "0.1", "", "0.2", "0.2"}, "model 'm'"); }),
                       "needs low < high"));
  EXPECT_TRUE(contains(thrown_by([] { check_parameter_range({"kp", "0.1", "", "0.05", ""}, "model 'm'"); }),
                       "give both ends"));
  EXPECT_TRUE(contains(thrown_by([] { check_parameter_range({"kp", "0.1", "", "x", "1"}, "model 'm'"); }), "kp"));
}

// Each range holds its default, and the model builds with each parameter at either end.
TEST(ParameterRange, EveryBuiltInModelDeclaresRangesItBuildsAt) {
  for (const ModelEntry& entry : model_catalog()) {
    int ranged = 0;
    for (const ParameterSpec& spec : entry.parameters) {
      if (!spec.has_range()) continue;
      ++ranged;
      EXPECT_EQ(thrown_by([&] { check_parameter_range(spec, "model '" + entry.name + "'"); }), "");
      for (const std::string& end : {spec.low, spec.high}) {
        ParameterValues values = entry.default_values();
        values.set(spec.name, end);
        EXPECT_EQ(thrown_by([&] { (void)entry.make<double>(values); }), "") << entry.name << " " << spec.name << "=" << end;
      }
    }
    EXPECT_GT(ranged, 0) << entry.name << " declares no range";
  }
}

// A model file declares the ranges of its built-in twin.
TEST(ParameterRange, ModelFilesDeclareTheirTwinsRanges) {
  int twins = 0;
  for (const auto& file : std::filesystem::directory_iterator(testing::source_dir() + "/models")) {
    if (file.path().extension() != ".hym") continue;
    const ModelEntry entry = lang::load_model_file(file.path().string());
    int ranged = 0;
    for (const ParameterSpec& spec : entry.parameters) ranged += spec.has_range() ? 1 : 0;
    EXPECT_GT(ranged, 0) << file.path();
    const std::string builtin = file.path().stem().string();
    bool found = false;
    for (const ModelEntry& twin : model_catalog()) found = found || twin.name == builtin;
    if (!found) continue;
    ++twins;
    std::map<std::string, std::pair<std::string, std::string>> ranges;
    for (const ParameterSpec& spec : find_model(builtin).parameters) ranges[spec.name] = {spec.low, spec.high};
    for (const ParameterSpec& spec : entry.parameters) {
      EXPECT_EQ(ranges[spec.name], std::make_pair(spec.low, spec.high)) << file.path() << " " << spec.name;
    }
  }
  EXPECT_GE(twins, 10);
}

std::string error_of(const std::string& text) {
  try {
    (void)lang::compile_text("r.hym", text);
  } catch (const lang::ModelFileError& e) {
    return e.what();
  }
  return "";
}

TEST(ParameterRange, TheModelLanguageReadsPrintsAndChecksARange) {
  const std::string body = "state x = 1\nmode a { der(x) = -k*x }\n";
  const lang::ModelSpec spec = lang::compile_text("r.hym", "model m\nparameter k = 1 in [-0.5, 2e0] \"rate\"\n" + body);
  ASSERT_EQ(spec.parameters.size(), 1u);
  EXPECT_EQ(spec.parameters[0].low, "-0.5");
  EXPECT_EQ(spec.parameters[0].high, "2e0");
  EXPECT_EQ(spec.parameters[0].meaning, "rate");
  const std::string printed = lang::print(lang::parse(lang::SourceText("r.hym", "model m\nparameter k = 1 in [-0.5, 2] \"rate\"\n" + body)));
  EXPECT_TRUE(contains(printed, "parameter k = 1 in [-0.5, 2] \"rate\"\n")) << printed;
  EXPECT_EQ(lang::print(lang::parse(lang::SourceText("p", printed))), printed);
  const ModelEntry entry = lang::model_entry(std::make_shared<const lang::ModelSpec>(spec));
  EXPECT_EQ(entry.parameters[0].low, "-0.5");

  EXPECT_TRUE(contains(error_of("model m\nparameter k = 3 in [0, 2]\n" + body),
                       "r.hym:2:17: error: the range of parameter 'k' of the model file: the default 3 is outside [0, 2]"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1 in [2, 1]\n" + body), "r.hym:2:17: error:"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1 in [2, 1]\n" + body), "needs low < high"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1 in [0 2]\n" + body),
                       "r.hym:2:23: error: expected ',' between the ends of the range of 'k'"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1 in [0, q]\n" + body), "the range's high end: a number"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1 in [0, 2\n" + body), "']' to close the range of 'k'"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1 in [0, 1e999]\n" + body), "r.hym:2:17: error:"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1\nstate x = 1 in [0, 2]\nmode a { der(x) = -k*x }\n"),
                       "r.hym:3:13: error: expected a declaration, found 'in'"));
}

// A rule table's fourth cell of [parameters]: LOW..HIGH.
std::string table_error(const std::string& parameters) {
  const std::string text = "[model]\nname\tr\ndt\t0.01\nt_end\t1\n\n[parameters]\n" + parameters +
                           "\n[initial]\nY\t1\ty\n\n[rules]\n№\tПеременная\tПроцедура\tКоэффициент\tАргумент 1\n"
                           "1\tY\tИнтеграл\t1\tk\n";
  try {
    const rules::RuleTable table = rules::parse_rule_table(lang::SourceText("r.rules.tsv", text));
    const ModelEntry entry = rules::engine_entry(table);
    return entry.parameters.at(0).name + " in [" + entry.parameters.at(0).low + ", " + entry.parameters.at(0).high + "]";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(ParameterRange, RuleTablesGiveARangeInTheFourthCell) {
  EXPECT_EQ(table_error("k\t-1\trate\t-2..0,5\n"), "k in [-2, 0.5]");
  EXPECT_EQ(table_error("k\t-1\trate\n"), "k in [, ]");  // none: old tables stay valid
  EXPECT_TRUE(contains(table_error("k\t-1\trate\t-2-0\n"), "r.rules.tsv:7:11: error: [parameters] k: the range '-2-0' is not LOW..HIGH"));
  EXPECT_TRUE(contains(table_error("k\t-1\trate\t0..-2\n"), "needs LOW < HIGH"));
  EXPECT_TRUE(contains(table_error("k\t-1\trate\t0..2\n"), "does not hold the value -1"));
}

TEST(ParameterRange, AnInitialValueDeclaresNoRange) {
  const std::string text = "[model]\nname\tr\nt_end\t1\n\n[initial]\nY\t1\ty\t0..2\n";
  const std::string message = thrown_by([&] { (void)rules::parse_rule_table(lang::SourceText("i.rules.tsv", text)); });
  EXPECT_TRUE(contains(message, "i.rules.tsv:6:7: error: [initial] Y: the range '0..2': only a parameter declares a range"))
      << message;
}

std::vector<study::SweepRow> sweep_rows(const study::SweepRequest& request, study::SweepColumns* columns) {
  std::vector<study::SweepRow> rows;
  study::run_sweep(request, [&](const study::SweepColumns& c) { *columns = c; },
                   [&](study::SweepRow&& row) { rows.push_back(std::move(row)); });
  return rows;
}

TEST(ParameterRange, ASweepDrawsEveryDeclaredRangeAndTheTolerance) {
  study::SweepRequest request;
  request.choice.model = "pwm-servo";
  request.choice.params = {"k_w=150"};  // named: not drawn
  request.samples = 20;
  request.declared_ranges = true;
  request.rtol_low = 1e-12;
  request.rtol_high = 1e-4;
  request.options.rtol = 1e-6;
  request.options.atol = 1e-9;
  study::SweepColumns columns;
  const auto rows = sweep_rows(request, &columns);
  const std::vector<std::string> swept = {"k", "kp", "u", "u_amp", "u_freq", "saw_max", "omega0", "phi0", "rtol", "atol"};
  EXPECT_EQ(columns.swept, swept);
  ASSERT_EQ(rows.size(), 20u);
  const ParameterSpec& kp = find_model("pwm-servo").parameters[2];
  ASSERT_EQ(kp.name, "kp");
  double smallest = 1, largest = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row.reason, "reached t_end") << row.message;
    EXPECT_GE(row.swept[1].value, std::stod(kp.low));
    EXPECT_LT(row.swept[1].value, std::stod(kp.high));
    const double rtol = row.swept[8].value, atol = row.swept[9].value;
    EXPECT_GE(rtol, 1e-12);
    EXPECT_LT(rtol, 1e-4);
    EXPECT_NEAR(atol / rtol, 1e-3, 1e-15);
    smallest = std::min(smallest, rtol);
    largest = std::max(largest, rtol);
  }
  EXPECT_LT(smallest * 1e3, largest);  // log-uniform: several decades in 20 draws
}

TEST(ParameterRange, NamedDeclaredAndLogUniformDraws) {
  study::SweepRequest request;
  request.choice.model = "bouncing-ball";
  request.choice.params = {"e=declared", "y0=loguniform:1:100"};
  request.samples = 30;
  request.options.t_end = 0.5;
  study::SweepColumns columns;
  for (const auto& row : sweep_rows(request, &columns)) {
    EXPECT_GE(row.swept[0].value, 0.3);
    EXPECT_LT(row.swept[0].value, 0.95);
    EXPECT_GE(row.swept[1].value, 1);
    EXPECT_LT(row.swept[1].value, 100);
  }
  EXPECT_EQ(columns.swept, (std::vector<std::string>{"e", "y0"}));
}

TEST(ParameterRange, BadDrawsAreRefusedNamingTheCulprit) {
  study::SweepColumns columns;
  study::SweepRequest request;
  request.choice.model = testing::source_dir() + "/examples/thermostat.hym";
  request.choice.params = {"T_low=declared"};
  request.samples = 2;
  EXPECT_TRUE(contains(thrown_by([&] { sweep_rows(request, &columns); }), "declares no range for 'T_low'"));
  request.choice.model = "bouncing-ball";
  request.choice.params = {"e=declared"};
  request.samples = 0;
  EXPECT_TRUE(contains(thrown_by([&] { sweep_rows(request, &columns); }), "--param e: a distribution needs --draws N"));
  request.choice.params = {};
  request.declared_ranges = true;
  EXPECT_TRUE(contains(thrown_by([&] { sweep_rows(request, &columns); }), "--declared-ranges needs --draws N"));
  request.declared_ranges = false;
  request.samples = 2;
  request.rtol_low = 1e-4;
  request.rtol_high = 1e-8;
  EXPECT_TRUE(contains(thrown_by([&] { sweep_rows(request, &columns); }), "--draw-rtol A:B needs 0 < A < B < 1"));
  request.choice.params = {"y0=loguniform:-1:2"};
  request.rtol_low = request.rtol_high = 0;
  EXPECT_TRUE(contains(thrown_by([&] { sweep_rows(request, &columns); }), "loguniform:A:B needs 0 < A < B"));
}

}  // namespace
}  // namespace hysim
