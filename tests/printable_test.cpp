// hysim::printable (hysim/core/printable.hpp): control bytes from files and paths are shown
// as escapes, never passed to the terminal; valid UTF-8 stays as it is.
#include <gtest/gtest.h>

#include <string>

#include "hysim/core/printable.hpp"
#include "hysim/core/verbosity.hpp"
#include "hysim/simulator.hpp"

namespace {

using hysim::printable;

TEST(Printable, PlainTextIsUnchanged) {
  EXPECT_EQ(printable("bouncing-ball: h = 1.5 (m) \\ 'a' \"b\" `c`"), "bouncing-ball: h = 1.5 (m) \\ 'a' \"b\" `c`");
  EXPECT_EQ(printable(""), "");
}

TEST(Printable, C0ControlsAndDelAreEscaped) {
  EXPECT_EQ(printable("a\x1b[31mred\x1b]0;title\x07"), "a\\x1b[31mred\\x1b]0;title\\x07");
  EXPECT_EQ(printable(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(printable("line\nnext\r\tend\x7f"), "line\\x0anext\\x0d\\x09end\\x7f");
}

TEST(Printable, KeptControlsStay) {
  EXPECT_EQ(printable("one\n\ttwo\x1b", "\n\t"), "one\n\ttwo\\x1b");
  EXPECT_EQ(hysim::printable_lines("a\nb\tc\rd"), "a\nb\tc\\x0dd");
}

TEST(Printable, C1ControlsAreEscaped) {
  // U+009B (CSI) and U+0085 (NEL) encoded in UTF-8; U+00A0 is the first character past C1.
  EXPECT_EQ(printable("a\xc2\x9b" "31mb\xc2\x85" "c\xc2\xa0"), "a\\u009b31mb\\u0085c\xc2\xa0");
  EXPECT_EQ(printable("\xc2\x80\xc2\x9f"), "\\u0080\\u009f");
}

TEST(Printable, ValidUtf8Stays) {
  const std::string russian = "Угол, Скорость_1; θ ≥ 0; 😀";
  EXPECT_EQ(printable(russian), russian);
}

TEST(Printable, MalformedUtf8IsEscapedByteByByte) {
  EXPECT_EQ(printable("a\x9b" "b"), "a\\x9bb");                // a lone continuation byte (8-bit CSI)
  EXPECT_EQ(printable("\xd0"), "\\xd0");                       // truncated at the end
  EXPECT_EQ(printable("\xd0" "A"), "\\xd0A");                  // lead byte without its continuation
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");              // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");     // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
}

// The engine's log (-v) names modes and guards, which a model may have from a file: its lines
// reach stderr printable.
TEST(Printable, TheLogEscapesNamesFromModels) {
  hysim::Model<double> model;
  model.name = "log";
  model.state_names = {"x"};
  model.x0 = {0};
  const hysim::FieldFunction<double> rate = [](double, const double*, double* dxdt) { dxdt[0] = 1; };
  model.add_mode("calm", rate);
  model.add_mode("red\x1b[31m", rate);
  model.add_transition("calm", "red\x1b[31m", "x\x1b]0;title\x07",
                       hysim::Guard<double>::atom(
                           "x - 0.5", [](double, const double* x) { return x[0] - 0.5; }, hysim::Relation::kGreaterEqual));
  model.finalize();
  hysim::SimulationOptions options;
  options.t_end = 1;
  hysim::set_verbosity(1);
  ::testing::internal::CaptureStderr();
  const auto result = hysim::Simulator<double>(model, options).run(nullptr);
  const std::string log = ::testing::internal::GetCapturedStderr();
  hysim::set_verbosity(0);
  EXPECT_EQ(result.stats.events, 1);
  EXPECT_NE(log.find("calm -> red\\x1b[31m"), std::string::npos) << log;
  EXPECT_NE(log.find("guard x\\x1b]0;title\\x07"), std::string::npos) << log;
  EXPECT_EQ(log.find('\x1b'), std::string::npos) << log;
  EXPECT_EQ(log.find('\x07'), std::string::npos) << log;
}

}  // namespace
