// Interval evaluation of the expression graph (lang/interval.hpp): over random boxes, the
// enclosure of every field and guard atom of a model file holds the value at every sampled
// point of the box, computed independently in long double by the tape (lang/tape.hpp); known
// enclosures (sin over [0, pi] reaches 1, 1/x across 0 is unbounded, a comparison is decided
// only when the box decides it); and the enclosure shrinks with the box.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "hysim/lang/interval.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/tape.hpp"

namespace hysim::lang {
namespace {

// Every function of the language the certified strategy needs, in fields, lets and guards
// (the fields `stepped`, so that their if, abs, min, max, floor and ceil stay in the field
// instead of splitting the mode).
const char* const kModel = R"(model mix
parameter a = 0.3, b = 2.5
state x = 0.5
state y = -1.25
let s = sin(3*x) + cos(y*y) - tan(x/4)
let e = exp(-x*y) + sqrt(abs(y) + 1) - log(1 + x*x)
let m = min(x, y) + max(x*y, b) + if x > y then atan(x - y) else -pow(y, 2)
mode run {
  der(x) = stepped(s*e - a*m + x^3 / (1 + y^2))
  der(y) = stepped(-sinh(x/3) + cosh(y/4) * tanh(x) - floor(2*x) + ceil(y))
}
run -> run when [x*y + sin(x) >= a || (abs(y - x) < b && exp(y) <= 2)]
)";

struct Compiled {
  ModelSpec spec = compile_text("mix.hym", kModel);
  std::vector<double> parameters;
  std::vector<NodeId> nodes;  // the fields and every guard atom's e and rate

  Compiled() {
    for (const ParameterInfo& p : spec.parameters) parameters.push_back(std::strtod(p.default_text.c_str(), nullptr));
    for (const ModeSpec& mode : spec.modes) nodes.insert(nodes.end(), mode.field.begin(), mode.field.end());
    for (const TransitionSpec& transition : spec.transitions) {
      for (const AtomSpec& atom : transition.atoms) {
        nodes.push_back(atom.e);
        if (atom.rate >= 0) nodes.push_back(atom.rate);
      }
    }
  }
};

TEST(IntervalEvaluation, EnclosesEveryPointOfRandomBoxes) {
  const Compiled model;
  ASSERT_EQ(model.spec.modes.size(), 1u) << "the fields were split";
  ASSERT_GE(model.nodes.size(), 4u);
  std::vector<long double> parameters(model.parameters.begin(), model.parameters.end());
  const Tape<long double> tape(model.spec.graph, model.nodes, parameters, 2);
  IntervalEvaluator evaluator(model.spec.graph, model.parameters);
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> centre(-3, 3), log_width(-12, 0), unit(0, 1);
  int checked = 0, bounded = 0;
  for (int box = 0; box < 400; ++box) {
    Interval x[2], f[2];
    for (Interval* v : {&x[0], &x[1], &f[0], &f[1]}) {
      const double c = centre(random), w = std::pow(10.0, log_width(random));
      *v = {c - w, c + w};
    }
    const Interval t{0, 1};
    evaluator.set_box(t, x, 2, f);
    std::vector<Interval> enclosures;
    for (const NodeId id : model.nodes) enclosures.push_back(evaluator.evaluate(id));
    for (int sample = 0; sample < 50; ++sample) {
      const double px[2] = {x[0].lo + unit(random) * x[0].width(), x[1].lo + unit(random) * x[1].width()};
      const double pf[2] = {f[0].lo + unit(random) * f[0].width(), f[1].lo + unit(random) * f[1].width()};
      const long double lx[2] = {px[0], px[1]}, lf[2] = {pf[0], pf[1]};
      std::vector<long double> values(model.nodes.size());
      tape.evaluate(0.5L, lx, lx, lf, values.data());
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (std::isnan(values[i])) continue;  // undefined there: the enclosure must be the whole line
        ++checked;
        EXPECT_TRUE(enclosures[i].lo <= values[i] && values[i] <= enclosures[i].hi)
            << "node " << i << " at x = (" << px[0] << ", " << px[1] << "): " << static_cast<double>(values[i])
            << " outside [" << enclosures[i].lo << ", " << enclosures[i].hi << "]";
      }
    }
    for (const Interval& e : enclosures) bounded += std::isfinite(e.lo) && std::isfinite(e.hi);
  }
  EXPECT_GT(checked, 50000);
  EXPECT_GT(bounded, 400);  // most enclosures prove something
}

// One node of a one-line model file: its enclosure over x in [lo, hi].
Interval enclosure(const std::string& expression, Interval x) {
  const ModelSpec spec =
      compile_text("one.hym", "model one\nstate x = 0\nmode m { der(x) = stepped(" + expression + ") }\n");
  IntervalEvaluator evaluator(spec.graph, {});
  evaluator.set_box({0, 0}, &x, 1);
  return evaluator.evaluate(spec.modes[0].field[0]);
}

TEST(IntervalEvaluation, KnownEnclosures) {
  const double pi = std::numbers::pi;
  EXPECT_EQ(enclosure("sin(x)", {0, pi}).hi, 1.0);           // the crest inside
  EXPECT_LE(enclosure("sin(x)", {0, pi}).lo, 0.0);
  EXPECT_LT(enclosure("sin(x)", {0.1, 1.5}).hi, 1.0);        // no crest: the endpoints decide
  EXPECT_EQ(enclosure("cos(x)", {3, 3.3}).lo, -1.0);         // the trough at pi
  EXPECT_GT(enclosure("cos(x)", {3.2, 3.3}).lo, -1.0);
  const Interval square = enclosure("x*x", {-1, 2});         // the natural extension: [-2, 4]
  EXPECT_TRUE(square.contains(0) && square.contains(4));
  EXPECT_EQ(enclosure("x^2", {-1, 2}).lo, 0.0);              // an even power knows its sign
  EXPECT_FALSE(std::isfinite(enclosure("1/x", {-1, 1}).hi)); // across a pole: unbounded
  EXPECT_FALSE(std::isfinite(enclosure("log(x)", {-1, 1}).lo));
  EXPECT_FALSE(std::isfinite(enclosure("tan(x)", {1.5, 1.6}).hi));
  const Interval tenth = enclosure("x + 0.1", {0, 0});       // 1/10 is no double: both sides
  EXPECT_LT(tenth.lo, 0.1L);
  EXPECT_GT(tenth.hi, 0.1L);
  // A comparison is decided only where the box decides it.
  EXPECT_EQ(enclosure("if x > 0 then 1 else -1", {1, 2}).lo, 1.0);
  const Interval undecided = enclosure("if x > 0 then 1 else -1", {-1, 2});
  EXPECT_LE(undecided.lo, -1.0);
  EXPECT_GE(undecided.hi, 1.0);
}

// The enclosure of a smooth function narrows with the box (here linearly: the natural
// extension of an expression in which x appears more than once overestimates by O(width)).
TEST(IntervalEvaluation, NarrowsWithTheBox) {
  const char* expression = "sin(3*x) * exp(-x) + sqrt(1 + x*x) - x^3";
  for (const double width : {1e-2, 1e-5, 1e-8, 1e-11}) {
    const Interval e = enclosure(expression, {0.7 - width, 0.7 + width});
    EXPECT_LT(e.width(), 40 * width) << width;
    EXPECT_GT(e.width(), 0.0);
  }
}

}  // namespace
}  // namespace hysim::lang
