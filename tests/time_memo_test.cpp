// TimeMemo (core/time_memo.hpp): a function of t computed once per time while two times
// alternate, and every reading the function's own value.
#include "hysim/core/time_memo.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

namespace hysim {
namespace {

// A function of t that counts its calls.
struct Counted {
  int* calls;
  double operator()(double t) const {
    ++*calls;
    return std::sin(3.0 * t) + t;
  }
};

TEST(TimeMemo, TwoAlternatingTimesAreComputedOnceEach) {
  int calls = 0;
  const TimeMemo<double, Counted> memo(Counted{&calls});
  const double a = 0.1, b = std::nextafter(a, 1.0);  // the ends of a bracket one ulp wide
  ASSERT_NE(a, b);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(memo(a), std::sin(3.0 * a) + a);
    EXPECT_EQ(memo(b), std::sin(3.0 * b) + b);
  }
  EXPECT_EQ(calls, 2);
}

TEST(TimeMemo, AThirdTimeReplacesTheOlderOne) {
  int calls = 0;
  const TimeMemo<double, Counted> memo(Counted{&calls});
  memo(1.0);
  memo(2.0);
  memo(2.0);
  memo(1.0);  // 1 is now the newer one
  EXPECT_EQ(calls, 2);
  memo(3.0);  // replaces 2
  EXPECT_EQ(calls, 3);
  memo(1.0);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(memo(2.0), std::sin(6.0) + 2.0);  // computed again
  EXPECT_EQ(calls, 4);
}

TEST(TimeMemo, MemosOfOneTypeKeepTheirOwnValues) {
  int calls_f = 0, calls_g = 0;
  const TimeMemo<double, Counted> f(Counted{&calls_f});
  const TimeMemo<double, Counted> g(Counted{&calls_g});
  EXPECT_EQ(f(0.5), std::sin(1.5) + 0.5);
  EXPECT_EQ(g(0.5), std::sin(1.5) + 0.5);  // another memo: its own call
  EXPECT_EQ(f(0.5), std::sin(1.5) + 0.5);
  EXPECT_EQ(calls_f, 1);
  EXPECT_EQ(calls_g, 1);
}

TEST(TimeMemo, EachThreadKeepsItsOwnTimes) {
  int calls_main = 0;
  const TimeMemo<double, Counted> memo(Counted{&calls_main});
  memo(1.0);
  double other = 0;
  std::thread worker([&] { other = memo(1.0); });  // its own slots: computed again there
  worker.join();
  EXPECT_EQ(other, std::sin(3.0) + 1.0);
  EXPECT_EQ(calls_main, 2);
}

}  // namespace
}  // namespace hysim
