// Model files (src/hysim/lang): the twins of the catalog give the events of their C++ models
// to 4 ulps in double and float128, on native code and on the tape; the parser and resolver
// report what is wrong and where.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "hysim/lang/build.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"
#include "test_support.hpp"
#include "source_dir.hpp"

namespace hysim {
namespace {

using testing::contains;

std::string shipped(const std::string& relative) { return testing::source_dir() + "/" + relative; }

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

// A field of more outputs than native code writes in one C function (lang/native.cpp writes
// it in parts of 128, copied to the field through a table): native code and the tape give
// the formula's bits, in every scalar type.
template <class S>
void expect_field_of_many_states() {
  constexpr int n = 300;
  std::string text = "model chain\nparameter k = 0.3\n";
  for (int i = 0; i < n; ++i) text += "state x" + std::to_string(i) + " = " + std::to_string(i + 1) + "\n";
  text += "mode m {\n";
  for (int i = 0; i < n; ++i) {
    text += "  der(x" + std::to_string(i) + ") = k*x" + std::to_string((i + 1) % n) + " - x" + std::to_string(i) + "\n";
  }
  text += "}\n";
  const auto spec = std::make_shared<const lang::ModelSpec>(lang::compile_text("chain.hym", text));
  for (const auto backend : {lang::NativeOptions::Backend::kNative, lang::NativeOptions::Backend::kTape}) {
    lang::NativeOptions options = lang::NativeOptions::from_environment();
    options.backend = backend;
    std::string used;
    const ModelEntry entry = lang::model_entry(spec, options, &used);
    const Model<S> model = entry.make<S>(entry.default_values());
    std::vector<S> dxdt(n);
    model.modes[0].field(S(0), model.x0.data(), dxdt.data());
    const S k = parse_decimal<S>("0.3", "k");
    for (int i = 0; i < n; ++i) {
      const S expected = k * model.x0[static_cast<std::size_t>((i + 1) % n)] - model.x0[static_cast<std::size_t>(i)];
      ASSERT_EQ(dxdt[static_cast<std::size_t>(i)], expected) << "der(x" << i << ") on " << used;
    }
  }
}

TEST(ModelFileNative, AFieldOfManyStatesIsWrittenInParts) {
  expect_field_of_many_states<double>();
  expect_field_of_many_states<long double>();
  expect_field_of_many_states<float128>();
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

// The file declares the C++ model's parameters (names, defaults, meanings) and presets
// (names, values, t_end, descriptions).
void expect_same_interface(const std::string& file, const std::string& builtin) {
  const ModelEntry twin = lang::load_model_file(shipped(file));
  const ModelEntry& cpp = find_model(builtin);
  ASSERT_EQ(twin.parameters.size(), cpp.parameters.size()) << file;
  for (std::size_t i = 0; i < cpp.parameters.size(); ++i) {
    EXPECT_EQ(twin.parameters[i].name, cpp.parameters[i].name) << file;
    EXPECT_EQ(twin.parameters[i].default_value, cpp.parameters[i].default_value) << cpp.parameters[i].name;
    EXPECT_EQ(twin.parameters[i].meaning, cpp.parameters[i].meaning) << cpp.parameters[i].name;
  }
  ASSERT_EQ(twin.presets.size(), cpp.presets.size()) << file;
  for (std::size_t i = 0; i < cpp.presets.size(); ++i) {
    const std::string& name = cpp.presets[i].name;
    EXPECT_EQ(twin.presets[i].name, name) << file;
    EXPECT_EQ(twin.presets[i].description, cpp.presets[i].description) << name;
    EXPECT_EQ(twin.presets[i].values, cpp.presets[i].values) << name;
    EXPECT_EQ(twin.presets[i].t_end, cpp.presets[i].t_end) << name;
  }
}

// The parameter values of the C++ model's preset `name`.
std::vector<std::pair<std::string, std::string>> preset_values(const std::string& builtin, const std::string& name) {
  for (const Preset& p : find_model(builtin).presets) {
    if (p.name == name) return p.values;
  }
  ADD_FAILURE() << builtin << " has no preset " << name;
  return {};
}

// The file and the C++ model give the same trajectory to the last bit: every sample (the
// steps' ends, sliding motion included) and the states before and after every event.
template <class S>
void expect_same_trajectory(const std::string& file, const std::string& builtin, double t_end,
                            const std::vector<std::pair<std::string, std::string>>& params = {}) {
  const ModelEntry twin = lang::load_model_file(shipped(file));
  ParameterValues values = twin.default_values();
  for (const auto& [k, v] : params) values.set(k, v);
  const Model<S> from_file = twin.make<S>(values);
  const Model<S> from_cpp = testing::catalog_model<S>(builtin, params);
  SimulationOptions options;
  options.t_end = t_end;
  const auto a = testing::collect(from_file, options, true);
  const auto b = testing::collect(from_cpp, options, true);
  ASSERT_EQ(a.samples.size(), b.samples.size()) << file;
  ASSERT_FALSE(a.samples.empty());
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    ASSERT_EQ(a.samples[i].t, b.samples[i].t) << file << " sample " << i;
    ASSERT_EQ(a.samples[i].mode, b.samples[i].mode) << file << " sample " << i;
    ASSERT_EQ(a.samples[i].x, b.samples[i].x) << file << " sample " << i;
  }
  ASSERT_EQ(a.rows.size(), b.rows.size()) << file;
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    ASSERT_EQ(a.rows[i].x_pre, b.rows[i].x_pre) << file << " event " << i;
    ASSERT_EQ(a.rows[i].x_post, b.rows[i].x_post) << file << " event " << i;
  }
  std::cout << file << " (" << scalar_name(scalar_kind_of<S>()) << "): " << a.samples.size() << " samples and "
            << a.rows.size() << " events' states identical\n";
}

// For models without events: the same samples.
template <class S>
void expect_sample_twins(const std::string& file, const std::string& builtin, double t_end) {
  expect_same_trajectory<S>(file, builtin, t_end);
  EXPECT_TRUE(testing::collect(testing::catalog_model<S>(builtin), SimulationOptions{.t_end = Decimal(t_end)}).rows.empty());
}

TEST(ModelFileTwins, Exponential) {
  expect_same_interface("models/exponential.hym", "exponential");
  expect_sample_twins<double>("models/exponential.hym", "exponential", 10.0);
  expect_sample_twins<float128>("models/exponential.hym", "exponential", 10.0);
}

TEST(ModelFileTwins, Oscillator) {
  expect_same_interface("models/oscillator.hym", "oscillator");
  expect_sample_twins<double>("models/oscillator.hym", "oscillator", 5.0);
  expect_sample_twins<float128>("models/oscillator.hym", "oscillator", 1.0);
}

// Each preset of the model: the same events (expect_twins) and the same samples
// (expect_same_trajectory) as the C++ model, in double to t_double and float128 to t_float128.
void expect_preset_twins(const std::string& file, const std::string& builtin, std::initializer_list<const char*> presets,
                         double t_double, double t_float128) {
  for (const char* preset : presets) {
    SCOPED_TRACE(std::string("preset ") + preset);
    const auto values = preset_values(builtin, preset);
    expect_twins<double>(file, builtin, t_double, values);
    expect_twins<float128>(file, builtin, t_float128, values);
    expect_same_trajectory<double>(file, builtin, t_double, values);
    expect_same_trajectory<float128>(file, builtin, t_float128, values);
  }
}

TEST(ModelFileTwins, PwmServo) {
  expect_twins<double>("models/pwm-servo.hym", "pwm-servo", 5.0);
  expect_twins<float128>("models/pwm-servo.hym", "pwm-servo", 1.0);
  expect_same_interface("models/pwm-servo.hym", "pwm-servo");
  // The tracking setpoint u(t) = sin t: the sine and its rate (u_amp*(cos(u_freq*t)*u_freq))
  // in the same operations as the C++ model.
  expect_preset_twins("models/pwm-servo.hym", "pwm-servo", {"tracking"}, 20.0, 5.0);
}

TEST(ModelFileTwins, DiodeInductor) {
  expect_same_interface("models/diode-inductor.hym", "diode-inductor");
  expect_preset_twins("models/diode-inductor.hym", "diode-inductor", {"issue4", "continuous-conduction"}, 4.0, 1.0);
}

TEST(ModelFileTwins, CamFollower) {
  expect_same_interface("models/cam-follower.hym", "cam-follower");
  expect_preset_twins("models/cam-follower.hym", "cam-follower", {"fig10", "fig11"}, 5.0, 2.0);
}

TEST(ModelFileTwins, BallIncline) {
  expect_same_interface("models/ball-incline.hym", "ball-incline");
  expect_preset_twins("models/ball-incline.hym", "ball-incline", {"paper", "from-rest", "slipping"}, 10.0, 10.0);
}

// The stiff relay loop: same parameters and preset; the same switches under the default
// solver (dopri5, its steps held by the fast sensor's stability bound) over [0, 3] s, and with
// the slow sensor (eps = 0.1) over [0, 10] s.
TEST(ModelFileTwins, StiffRelay) {
  expect_same_interface("models/stiff-relay.hym", "stiff-relay");
  expect_twins<double>("models/stiff-relay.hym", "stiff-relay", 3.0);
  expect_twins<double>("models/stiff-relay.hym", "stiff-relay", 10.0, {{"eps", "0.1"}});
}

TEST(ModelFileTwins, StickSlip) {
  expect_same_interface("models/stick-slip.hym", "stick-slip");
  expect_preset_twins("models/stick-slip.hym", "stick-slip", {"periodic", "on-belt"}, 100.0, 30.0);
}

TEST(ModelFileTwins, FallingRod) {
  expect_same_interface("models/falling-rod.hym", "falling-rod");
  // The presets, and variants of fig6 and fig7 (most from tests/falling_rod_test.cpp) that
  // stick, slip again, stay stuck until the rod lies flat, or lift off and land on B.
  using Values = std::vector<std::pair<std::string, std::string>>;
  const std::vector<std::pair<const char*, Values>> cases = {
      {"fig6", {}}, {"fig7", {}}, {"fig6", {{"mu", "0"}}}, {"fig6", {{"mu", "0.045"}}}, {"fig6", {{"mu", "0.046"}}},
      {"fig6", {{"mu", "0.1"}}}, {"fig6", {{"mu", "1"}}}, {"fig7", {{"l", "-0.7"}}},
      {"fig6", {{"omega0", "-3"}, {"vx0", "0.5"}}}};
  for (const auto& [preset, overrides] : cases) {
    Values values = preset_values("falling-rod", preset);
    values.insert(values.end(), overrides.begin(), overrides.end());
    expect_twins<double>("models/falling-rod.hym", "falling-rod", 3.0, values);
    expect_twins<float128>("models/falling-rod.hym", "falling-rod", 3.0, values);
    expect_same_trajectory<double>("models/falling-rod.hym", "falling-rod", 3.0, values);
    expect_same_trajectory<float128>("models/falling-rod.hym", "falling-rod", 3.0, values);
  }
}


// ---- diagnostics ----------------------------------------------------------------------------

// The message of the ModelFileError that compiling `text` throws ("" when it compiles).
std::string error_of(const std::string& text) {
  try {
    (void)lang::compile_text("bad.hym", text);
  } catch (const lang::ModelFileError& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader = "model m\nparameter k = 2\nstate x = 1, v = 0\n";

TEST(ModelFileErrors, UnknownNameShowsTheLineACaretAndTheClosestName) {
  const std::string message = error_of(kHeader + "mode a { der(x) = vv; der(v) = -k*x }\n");
  EXPECT_TRUE(contains(message, "bad.hym:4:19: error: unknown name 'vv'; did you mean 'v'?")) << message;
  EXPECT_TRUE(contains(message, "  mode a { der(x) = vv; der(v) = -k*x }\n                    ^")) << message;
}

TEST(ModelFileErrors, SyntaxErrorsSayWhatWasExpected) {
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(x) = v; der(v) = -x }\na -> a hit [x < 0 { v := 0 }\n"),
                       "bad.hym:5:19: error: expected ']' to close the guard of 'hit', found '{'"));
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(x) = v; der(v) = -x }\na -> a hit [x < 0] { v = 0 }\n"),
                       "a reset assigns with ':=', not '='"));
  EXPECT_TRUE(contains(error_of("parameter k = 1\n"), "bad.hym:1:1: error: the file declares no model"));
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(x) = 1 < x < 2 }"), "comparisons do not chain"));
  EXPECT_TRUE(contains(error_of(kHeader + "let y = (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                                          "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                                          "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1"),
                       "nested deeper than"));
  EXPECT_TRUE(contains(error_of(kHeader + "let y = \"open\nmode a"), "unterminated string"));
  EXPECT_TRUE(contains(error_of(kHeader + "let y = 2x"), "malformed number"));
}

TEST(ModelFileErrors, SemanticErrorsNameTheCulprit) {
  const std::string mode = "mode a { der(x) = v; der(v) = -x }\n";
  EXPECT_TRUE(contains(error_of(kHeader + mode + mode), "bad.hym:5:6: error: mode 'a' is declared twice (line 4)"));
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(k) = 1; der(x) = v; der(v) = -x }\n"),
                       "der() applies to states; 'k' is a parameter"));
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(x) = v }\n"),
                       "mode 'a' gives no derivative for state 'v'"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "a -> a hit [x + 1] { v := 0 }\n"),
                       "a guard must be a condition (comparisons joined with &&, || and !), found a number"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "a -> a hit [x < 0] { k := 0 }\n"), "a reset applies to states; 'k' is a parameter"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "a -> b hit [x < 0]\n"), "unknown mode 'b'; did you mean 'a'?"));
  EXPECT_TRUE(contains(error_of(kHeader + "let p = q + 1\nlet q = p * 2\n" + mode), "recursion among let names: p -> q -> p"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1e999\nstate x = 0\nmode a { der(x) = k }\n"),
                       "bad.hym:2:15: error: value '1e999' for parameter 'k' is out of range: it overflows the double range"));
  EXPECT_TRUE(contains(error_of("model m\nparameter k = 1e-999\nstate x = 0\nmode a { der(x) = k }\n"),
                       "bad.hym:2:15: error: value '1e-999' for parameter 'k' is out of range: it underflows"));
  // A literal in an expression, at its file:line:column (not when the tape is built).
  EXPECT_TRUE(contains(error_of("model m\nstate x = 0\nmode a { der(x) = 2 * 1e999 }\n"),
                       "bad.hym:3:23: error: value '1e999' for a literal is out of range: it overflows the double range"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "a -> a hit [x == 0]\n"), "cannot be located in time"));
  EXPECT_TRUE(contains(error_of(kHeader + "state t = 0\n" + mode), "'t' is a keyword"));
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(x) = prior(v); der(v) = -x }\n"),
                       "prior() reads the state before a jump; it has a meaning in guards only"));
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(x) = sqrt(v, x); der(v) = -x }\n"), "sqrt() takes 1 argument, found 2"));
  EXPECT_TRUE(contains(error_of(kHeader + "mode a { der(x) = sine(v); der(v) = -x }\n"),
                       "unknown function 'sine'; did you mean 'sin'?"));
  EXPECT_TRUE(contains(error_of(kHeader + "state y = x\n" + mode), "initial values and requirements depend on parameters only"));
  // Every error is reported, not only the first.
  const std::string both = error_of(kHeader + "mode a { der(x) = w; der(v) = z }\n");
  EXPECT_TRUE(contains(both, "unknown name 'w'") && contains(both, "unknown name 'z'")) << both;
}

TEST(ModelFileErrors, WarningsAndBuildTimeChecks) {
  const auto spec = lang::compile_text("warn.hym", kHeader + "mode a { der(x) = v; der(v) = -x }\n"
                                                             "mode b { der(x) = 0; der(v) = 0 }\n");
  EXPECT_TRUE(contains(spec.warning_text, "warn.hym:5:6: warning: mode 'b' is unreachable from the initial mode"));
  const auto entry = lang::model_entry(std::make_shared<const lang::ModelSpec>(lang::compile_text(
      "req.hym", "model m\nparameter z = 0\nstate x = 1\nlet c = 1/z\nrequire z >= 0 \"z is a distance\"\n"
                 "mode a { der(x) = c }\n")));
  ParameterValues values = entry.default_values();
  try {
    (void)entry.make<double>(values);
    ADD_FAILURE() << "a let of parameters that is infinite must be refused";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "req.hym:4:5: let 'c' of model 'm' is inf")) << e.what();
  }
  values.set("z", "-1");
  try {
    (void)entry.make<double>(values);
    ADD_FAILURE() << "a broken requirement must be refused";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "req.hym:5:1: model 'm' requires z >= 0 (z is a distance)")) << e.what();
  }
}

// A mode whose field needs more registers than a tape holds (65535): the message says where
// the mode stands, not only what overflowed.
TEST(ModelFileErrors, RegisterOverflowNamesTheMode) {
  std::string text = "model big\n";
  constexpr int kStates = 20, kLets = 10, kTerms = 130;  // 20 x 10 x 130 x (constant, *, +) > 65535
  for (int i = 0; i < kStates; ++i) text += "state x" + std::to_string(i) + " = 1\n";
  for (int i = 0; i < kStates; ++i) {
    for (int j = 0; j < kLets; ++j) {
      text += "let l" + std::to_string(i) + "_" + std::to_string(j) + " = 0";
      for (int k = 0; k < kTerms; ++k) {
        text += " + x" + std::to_string(i) + "*" + std::to_string(i + 1) + "." + std::to_string(1000 + j) +
                std::to_string(1000 + k);
      }
      text += "\n";
    }
  }
  text += "mode a {";
  for (int i = 0; i < kStates; ++i) {
    text += " der(x" + std::to_string(i) + ") = 0";
    for (int j = 0; j < kLets; ++j) text += " + l" + std::to_string(i) + "_" + std::to_string(j);
    text += ";";
  }
  text += " }\n";
  const int mode_line = 1 + kStates + kStates * kLets + 1;
  lang::NativeOptions tape;
  tape.backend = lang::NativeOptions::Backend::kTape;
  const auto entry = lang::model_entry(std::make_shared<const lang::ModelSpec>(lang::compile_text("big.hym", text)), tape);
  try {
    (void)entry.make<double>(entry.default_values());
    ADD_FAILURE() << "a field beyond 65535 registers must be refused";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "big.hym:" + std::to_string(mode_line) + ":6: a model file's expression needs more than 65535 registers"))
        << e.what();
  }
}

// A byte order mark is skipped (columns count from after it); a directory is not a file.
TEST(ModelFileErrors, ByteOrderMarkAndDirectory) {
  const auto spec = lang::compile_text("bom.hym", "\xEF\xBB\xBFmodel m\nstate x = 1\nmode a { der(x) = -x }\n");
  EXPECT_EQ(spec.name, "m");
  EXPECT_TRUE(contains(error_of("\xEF\xBB\xBFmodel m\nstate x = 1\nmode a { der(x) = -y }\n"), "bad.hym:3:20: error: unknown name 'y'"));
  try {
    (void)lang::compile_file(testing::source_dir());
    ADD_FAILURE() << "a directory must be refused";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), "'" + std::string(testing::source_dir()) + "' is a directory, not a model file");
  }
}

// Control bytes in a file are shown escaped in diagnostics, the caret under the column.
TEST(ModelFileErrors, ControlBytesAreEscapedInDiagnostics) {
  const std::string message = error_of("model m\nstate x = 1\nmode a\x1b[2J { der(x) = -x }\n");
  EXPECT_TRUE(contains(message, "bad.hym:3:7: error: ")) << message;
  EXPECT_TRUE(contains(message, "\n  mode a\\x1b[2J { der(x) = -x }\n        ^")) << message;
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
}

// ---- semantics --------------------------------------------------------------------------------

// A guard's negation is pushed to its atoms (De Morgan, 004 Algorithm 1): !(x > 0 && v > 0)
// becomes x <= 0 || v <= 0, and the rates of the atoms are the exact derivatives along f.
TEST(ModelFileSemantics, DeMorganAndRates) {
  const auto spec = lang::compile_text("m.hym", kHeader + "mode a { der(x) = v; der(v) = -k*x }\n"
                                                          "a -> a hit [!(x > 0 && k*v*v > 1)]\n");
  ASSERT_EQ(spec.transitions.size(), 1u);
  const auto& tr = spec.transitions[0];
  EXPECT_EQ(tr.guard.back().kind, lang::GuardNode::Kind::kOr);
  ASSERT_EQ(tr.atoms.size(), 2u);
  EXPECT_EQ(tr.atoms[0].relation, Relation::kLessEqual);
  EXPECT_EQ(tr.atoms[1].relation, Relation::kLessEqual);
  EXPECT_EQ(spec.print(tr.atoms[1].e), "k*v*v - 1");
  EXPECT_EQ(spec.print(tr.atoms[1].rate), "k*der(v)*v + k*v*der(v)");
  // Evaluated: e = k v^2 - 1, de/dt = 2 k v f_v, at x = 1, v = 3, f = (3, -2).
  const Model<double> model = lang::build_model<double>(spec, ParameterValues("m", {{"k", "2", ""}}));
  const auto& atom = model.modes[0].transitions[0].guard.atoms()[1];
  const double x[] = {1.0, 3.0};
  const double f[] = {3.0, -2.0};
  EXPECT_EQ(atom.e(0.0, x), 17.0);
  EXPECT_EQ(atom.rate(0.0, x, f), -24.0);
}

TEST(ModelFileSemantics, ConditionalInitialModeAndResetsReadTheAPrioriState) {
  const std::string text = "model m\nparameter v0 = 0\nstate x = 0, v = v0\n"
                           "mode rest { der(x) = 0; der(v) = 0 }\nmode move { der(x) = v; der(v) = 0 }\n"
                           "initial rest [v == 0]\ninitial move\n"
                           "move -> move swap [x >= 1] { x := v; v := x }\n";
  const auto entry = lang::model_entry(std::make_shared<const lang::ModelSpec>(lang::compile_text("m.hym", text)));
  ParameterValues values = entry.default_values();
  EXPECT_EQ(entry.make<double>(values).initial_mode, 0);
  values.set("v0", "2");
  const Model<double> model = entry.make<double>(values);
  EXPECT_EQ(model.initial_mode, 1);
  const double pre[] = {1.0, 2.0};
  double post[] = {1.0, 2.0};
  model.modes[1].transitions[0].reset(0.0, pre, post);
  EXPECT_EQ(post[0], 2.0);  // x := v (a priori)
  EXPECT_EQ(post[1], 1.0);  // v := x (a priori, not the new x)
}

// pow(a, b) is a ^ b: the same node (so the same values, rates and code), and a run on it meets
// the closed form. dx/dt = pow(x, 0.5) from x = 1 gives x = (1 + t/2)^2; the guard
// pow(x, 0.5) >= 2 fires at t = 2 exactly.
TEST(ModelFileSemantics, PowIsThePowerOperator) {
  const auto spec = lang::compile_text("m.hym", "model m\nstate x = 1\nmode a { der(x) = pow(x, 0.5) }\n"
                                                "mode b { der(x) = 0 }\na -> b reach [pow(x, 0.5) >= 2]\n");
  ASSERT_EQ(spec.transitions.size(), 1u);
  EXPECT_EQ(spec.print(spec.transitions[0].atoms[0].e), "x^0.5 - 2");
  const Model<double> model = lang::build_model<double>(spec, ParameterValues("m", {}));
  SimulationOptions options;
  options.t_end = 3;
  options.rtol = 1e-12;
  options.atol = 1e-14;
  Simulator<double> simulator(model, options);
  const RunResult<double> result = simulator.run(nullptr);
  ASSERT_FALSE(result.failed()) << result.message;
  EXPECT_EQ(result.stats.events, 1);
  EXPECT_EQ(model.modes[static_cast<std::size_t>(result.mode)].name, "b");
  EXPECT_NEAR(result.x[0], 4.0, 1e-9);
  const std::string message = error_of("model m\nparameter pow = 1\nstate x = 0\nmode a { der(x) = 1 }\n");
  EXPECT_TRUE(contains(message, "'pow' is a function of the language")) << message;
}

// ---- switches inside a field ----------------------------------------------------------------

Model<double> model_of(const std::string& text) {
  const auto entry = lang::model_entry(std::make_shared<const lang::ModelSpec>(lang::compile_text("m.hym", text)));
  return entry.make<double>(entry.default_values());
}

// A relay without hysteresis around the triple lag 1/(s+1)^3 (a limit cycle at omega = sqrt 3),
// written once with an `if` in the field and once with two explicit modes: the compiler's
// split gives the explicit model's events, to the bit, and names the parts loop[+] (y < 0
// holds) and loop[-].
TEST(ModelFileSwitches, AnIfInAFieldIsLocatedLikeExplicitModes) {
  const std::string head = "model relay\nparameter d = 1\nstate y = 0.5, z = 0, w = 0\n"
                           "flow { der(y) = z - y; der(z) = w - z }\n";
  const Model<double> implicit = model_of(head + "mode loop { der(w) = (if y < 0 then d else -d) - w }\n");
  const Model<double> explicit_modes = model_of(head + "mode minus { der(w) = -d - w }\nmode plus { der(w) = d - w }\n"
                                                       "minus -> plus on [y < 0]\nplus -> minus off [y >= 0]\n");
  ASSERT_EQ(implicit.modes.size(), 2u);
  EXPECT_EQ(implicit.modes[0].name, "loop[-]");
  EXPECT_EQ(implicit.modes[1].name, "loop[+]");
  EXPECT_EQ(implicit.initial_mode, 0);  // y0 = 0.5: y < 0 fails
  SimulationOptions options;
  options.t_end = 20;
  const auto a = testing::collect(implicit, options);
  const auto b = testing::collect(explicit_modes, options);
  ASSERT_GE(a.rows.size(), 10u);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].t, b.rows[i].t) << "event " << i;
    EXPECT_EQ(a.rows[i].to, b.rows[i].to) << "event " << i;  // plus/loop[+] is mode 1 in both
    EXPECT_EQ(a.rows[i].guard, "switch1");
  }
  // Stepped across instead (stepped()), the same loop records no event at all.
  const auto c = testing::collect(model_of(head + "mode loop { der(w) = stepped(if y < 0 then d else -d) - w }\n"), options);
  EXPECT_TRUE(c.rows.empty());
}

// x' = 1 - 2 sign(x) pushes x towards 0 from both sides: the split makes x = 0 a surface that
// both parts drive into, and the engine slides on it (Filippov: x' = 0) instead of chattering.
TEST(ModelFileSwitches, ASignInAFieldBecomesASlidingSurface) {
  const Model<double> model = model_of("model m\nstate x = 1\nmode a { der(x) = 1 - 2*sign(x) }\n");
  SimulationOptions options;
  options.t_end = 5;
  RunResult<double> result;
  const auto run = testing::collect(model, options, true, &result);
  ASSERT_FALSE(run.rows.empty());
  EXPECT_NEAR(run.rows[0].t, 1.0, 1e-12);  // x = 1 - t reaches 0 at t = 1
  bool slides = false;
  for (const auto& row : run.rows) slides = slides || row.kind == TransitionClass::kSliding;
  EXPECT_TRUE(slides);
  EXPECT_LT(run.rows.size(), 5u);  // no chattering
  EXPECT_NEAR(run.samples.back().x[0], 0.0, 1e-12);
}

// abs, min and max freeze to the branch each part stands for.
TEST(ModelFileSwitches, AbsMinMaxFreezeTheirBranches) {
  const Model<double> model = model_of("model m\nparameter c = 2\nstate x = 1, y = 3\n"
                                       "mode a { der(x) = abs(x); der(y) = min(x, y) + max(y, c) }\n");
  ASSERT_EQ(model.modes.size(), 8u);  // x >= 0, y < x, y < c (max(y, c): y < c)
  const double state[] = {-1.0, 3.0};
  for (const auto& mode : model.modes) {
    double f[2];
    mode.field(0.0, state, f);
    const bool x_nonnegative = mode.name[2] == '+';
    const bool y_below_x = mode.name[3] == '+';
    const bool y_below_c = mode.name[4] == '+';
    EXPECT_EQ(f[0], x_nonnegative ? -1.0 : 1.0) << mode.name;
    EXPECT_EQ(f[1], (y_below_x ? 3.0 : -1.0) + (y_below_c ? 2.0 : 3.0)) << mode.name;
  }
}

// ---- time events --------------------------------------------------------------------------

// A guard on t alone is a time event: the event time is computed from its root, with no root
// iteration, and is exact: the last representable t before the guard holds (one-sided).
template <class S>
void expect_time_event(const std::string& relation, const S& expected) {
  const auto entry = lang::model_entry(std::make_shared<const lang::ModelSpec>(lang::compile_text(
      "t.hym", "model m\nparameter T = 2.5\nstate x = 0\nmode a { der(x) = 1 }\nmode b { der(x) = -1 }\n"
               "a -> b at [t " + relation + " T]\n")));
  const Model<S> model = entry.make<S>(entry.default_values());
  EXPECT_EQ(model.modes[0].transitions[0].guard.atoms()[0].time, parse_decimal<S>("2.5", "T"));
  SimulationOptions options;
  options.t_end = 5;
  RunResult<S> result;
  const auto run = testing::collect(model, options, false, &result);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].t, expected) << relation;
  EXPECT_EQ(result.stats.root_iterations, 0);
}

TEST(ModelFileTimeEvents, AreComputedNotSearched) {
  expect_time_event<double>(">=", -next_up(-2.5));  // t >= 2.5 first holds at 2.5
  expect_time_event<double>(">", 2.5);               // t > 2.5 first holds one ulp later
  expect_time_event<float128>(">=", -next_up(-float128("2.5")));
  expect_time_event<long double>(">", 2.5L);
}

// A field that switches on t is split, and its switch is a time event too.
TEST(ModelFileTimeEvents, ASwitchOnTimeInAFieldIsAComputedEvent) {
  const Model<double> model = model_of("model m\nstate x = 0\nmode a { der(x) = if t < 0.1 then 1 else -1 }\n");
  SimulationOptions options;
  options.t_end = 1;
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].t, -next_up(-0.1));
  EXPECT_EQ(result.stats.root_iterations, 0);
}

// ---- crossings --------------------------------------------------------------------------------

// A ball in one mode, written with crossings: the impact resets v, the apex records where v
// falls through 0, the half-height is recorded both ways. Against the closed form of the
// first flights (t_1 = sqrt(2 h / g), apex after the first rebound at t_1 + e v_1 / g, halves
// where y = h / 2).
TEST(ModelFileCrossings, ABallInOneModeAgainstItsClosedForm) {
  const Model<double> model = model_of(
      "model ball\nparameter g = 9.81, e = 0.8, h = 10\nstate y = h, v = 0\n"
      "flow { der(y) = v; der(v) = -g }\nmode fly\n"
      "crossing impact (y) down { v := -e*v }\ncrossing apex (v) down\ncrossing half (y - h/2) both\n");
  SimulationOptions options;
  options.t_end = 2.6;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  const auto run = testing::collect(model, options);
  const double g = 9.81, e = 0.8, h = 10, t1 = std::sqrt(2 * h / g), v1 = std::sqrt(2 * g * h);
  const double v_half = std::sqrt(e * e * v1 * v1 - g * h);  // rising through h / 2 after the rebound
  const std::vector<std::pair<std::string, double>> expected = {
      {"half", std::sqrt(h / g)}, {"impact", t1}, {"half", t1 + (e * v1 - v_half) / g}, {"apex", t1 + e * v1 / g}};
  ASSERT_EQ(run.rows.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(run.rows[k].guard, expected[k].first);
    EXPECT_NEAR(run.rows[k].t, expected[k].second, 1e-9);
    EXPECT_EQ(run.rows[k].from, run.rows[k].to);
  }
  EXPECT_NEAR(run.rows[1].x_post[1], e * v1, 1e-8);
}

// `in` limits a crossing to modes, `stop` ends the run there, and neither word is reserved: a
// mode named stop may follow.
TEST(ModelFileCrossings, InStopAndAModeNamedStop) {
  const Model<double> model = model_of(
      "model m\nstate x = 0\nmode go { der(x) = 1 }\nmode stop { der(x) = -1 }\n"
      "crossing one (x - 1) up in go stop\ncrossing two (x - 0.5) up in stop\n"
      "stop -> go back [x < 0]\n");
  SimulationOptions options;
  options.t_end = 5;
  RunResult<double> result;
  const auto run = testing::collect(model, options, false, &result);
  EXPECT_EQ(result.reason, RunReason::kStopped);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].guard, "one");
  EXPECT_NEAR(run.rows[0].t, 1.0, 1e-12);
  EXPECT_EQ(model.modes[0].transitions.size(), 1u);  // go: one; stop: two and back
  EXPECT_EQ(model.modes[1].transitions.size(), 2u);
  EXPECT_TRUE(model.modes[0].transitions[0].stop);
  EXPECT_FALSE(model.modes[1].transitions[0].stop);
}

// A crossing in a mode whose field switches is watched in every part of the split.
TEST(ModelFileCrossings, WatchedInEveryPartOfASplitMode) {
  const Model<double> model = model_of(
      "model m\nstate x = 0\nmode a { der(x) = if t < 1 then 1 else 2 }\ncrossing mark (x - 1.5) up\n");
  SimulationOptions options;
  options.t_end = 2;
  const auto run = testing::collect(model, options);
  ASSERT_EQ(run.rows.size(), 2u);  // the switch at t = 1, then x = 1.5 at t = 1.25
  EXPECT_EQ(run.rows[1].guard, "mark");
  EXPECT_NEAR(run.rows[1].t, 1.25, 1e-12);
  EXPECT_EQ(run.rows[1].from, run.rows[1].to);
}

TEST(ModelFileCrossings, ErrorsNameTheCulprit) {
  const std::string mode = "mode a { der(x) = v; der(v) = -x }\n";
  EXPECT_TRUE(contains(error_of(kHeader + mode + "crossing c (x) sideways\n"),
                       "bad.hym:5:16: error: the direction of crossing 'c' is up, down or both, not 'sideways'"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "crossing c (x > 0) up\n"),
                       "bad.hym:5:15: error: crossing 'c' records where a number crosses zero"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "crossing c x up\n"), "expected '(' to open the expression"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "mode p algebraic\na -> p go [x < 0]\np -> a back [x < 1]\n"
                                                 "crossing c (x) up in p\n"),
                       "crossing 'c' is watched in 'p', which is algebraic"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "crossing c (x) up in b\n"), "unknown mode 'b'"));
  EXPECT_TRUE(contains(error_of(kHeader + mode + "crossing c (x) up { v := 1; v := 2 }\n"),
                       "'v' is reset twice in crossing 'c'"));
}

// The printer writes a crossing back as it parses.
TEST(ModelFileCrossings, PrintParsesBack) {
  const std::string text = kHeader + "mode a { der(x) = v; der(v) = -x }\nmode b { der(x) = 0; der(v) = 0 }\n"
                                     "crossing c (x - k) both in a, b { v := -v } stop\ncrossing d (v) up\n";
  const std::string printed = lang::print(lang::parse(lang::SourceText("p.hym", text)));
  EXPECT_TRUE(contains(printed, "crossing c (x - k) both in a, b { v := -v; } stop\n")) << printed;
  EXPECT_TRUE(contains(printed, "crossing d (v) up\n")) << printed;
  EXPECT_EQ(lang::print(lang::parse(lang::SourceText("p.hym", printed))), printed);
}

// ---- absolute tolerances per state ----------------------------------------------------------

// `state small = 1e-6 atol 1e-15` gives the state its own absolute tolerance, as
// `--atol small=1e-15` does (the same run, to the bit), and an option naming it overrides it.
TEST(ModelFileStateTolerances, AStateDeclaresItsOwnAtol) {
  const std::string body = "mode a { der(big) = -big; der(small) = -10*small }\ncrossing tiny (small - 5e-7) down\n";
  const Model<double> plain = model_of("model decay\nstate big = 1e6, small = 1e-6\n" + body);
  const Model<double> declared = model_of("model decay\nstate big = 1e6, small = 1e-6 atol 1e-15 \"tiny\"\n" + body);
  ASSERT_EQ(declared.state_atol.size(), 2u);
  EXPECT_NE(declared.state_atol[0], declared.state_atol[0]);  // NaN: big keeps the run's atol
  EXPECT_EQ(declared.state_atol[1], 1e-15);
  SimulationOptions options;
  options.t_end = 1;
  options.rtol = 1e-6;
  options.atol = 1e-3;
  const auto first_event = [&](const Model<double>& model, const SimulationOptions& o) {
    const auto run = testing::collect(model, o);
    return run.rows.empty() ? -1.0 : run.rows[0].t;
  };
  SimulationOptions by_option = options;
  by_option.atol_states = {{"small", Decimal("1e-15")}};
  EXPECT_EQ(first_event(declared, options), first_event(plain, by_option));
  EXPECT_NEAR(first_event(declared, options), std::log(2.0) / 10, 1e-6);
  SimulationOptions overridden = options;
  overridden.atol_states = {{"small", Decimal("1e-3")}};
  EXPECT_EQ(first_event(declared, overridden), first_event(plain, options));
  EXPECT_TRUE(contains(error_of("model m\nstate x = 1 atol 0\nmode a { der(x) = -x }\n"),
                       "bad.hym:2:13: error: the atol of state 'x' must be > 0, not 0"));
  EXPECT_TRUE(contains(error_of("model m\nstate x = 1 atol small\nmode a { der(x) = -x }\n"),
                       "the absolute tolerance of state 'x' after atol: a number"));
  const std::string text = "model m\nstate x = 1 atol 1e-12 \"position\", v = 0\nmode a { der(x) = v; der(v) = -x }\n";
  const std::string printed = lang::print(lang::parse(lang::SourceText("p.hym", text)));
  EXPECT_TRUE(contains(printed, "state x = 1 atol 1e-12 \"position\"\n")) << printed;
}

}  // namespace
}  // namespace hysim
