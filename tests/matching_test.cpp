// Matching a run's events against reference events (hysim/study/matching.hpp), on hand-made lists:
// exact matches, a missed pair, a spurious event, a shifted event inside and outside its
// window, a guard that does not agree, the open window at the end of a run, and the errors
// of numbered events in the layout of 004, Table 1.
#include "hysim/study/matching.hpp"

#include <gtest/gtest.h>

namespace hysim::study {
namespace {

const std::string kGuard = "g";

// Reference events at the given times, guard "g" unless given, state x = (10 t).
std::vector<ReferenceEvent> reference_at(const std::vector<double>& times, const std::vector<std::string>& guards = {}) {
  std::vector<ReferenceEvent> events;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const float128 t = times[i];
    const ReferenceEvent e{t, "a", "b", guards.empty() ? kGuard : guards[i], {float128(10) * t}};
    events.push_back(e);
  }
  return events;
}

std::vector<RunEvent> run_at(const std::vector<double>& times, const std::vector<std::string>& guards = {}) {
  std::vector<RunEvent> events;
  for (std::size_t i = 0; i < times.size(); ++i) {
    events.push_back({float128(times[i]), guards.empty() ? kGuard : guards[i], {float128(10) * float128(times[i])}});
  }
  return events;
}

// The four counts of a match, in one assertion: matched, missed, spurious, open.
::testing::AssertionResult counts_are(const MatchResult& m, std::size_t matched, std::size_t missed,
                                      std::size_t spurious, std::size_t open = 0) {
  if (m.matched == matched && m.missed == missed && m.spurious == spurious && m.open == open) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "matched/missed/spurious/open = " << m.matched << "/" << m.missed << "/"
                                       << m.spurious << "/" << m.open << ", expected " << matched << "/" << missed
                                       << "/" << spurious << "/" << open;
}

// Identical lists: every event matched with zero error, nothing missed, spurious or open.
TEST(Matching, ExactMatches) {
  const auto reference = reference_at({0.1, 0.2, 0.3, 0.4});
  const auto run = run_at({0.1, 0.2, 0.3, 0.4});
  const MatchResult m = match_events(run, reference, float128(1));
  EXPECT_TRUE(counts_are(m, 4, 0, 0));
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(m.reference_of_run[i], static_cast<std::ptrdiff_t>(i));
    EXPECT_EQ(m.run_of_reference[i], static_cast<std::ptrdiff_t>(i));
  }
  EXPECT_EQ(max_time_error(m, run, reference), 0.0);
}

// A run that skips two neighbouring events: both are missed, the others still match.
TEST(Matching, MissedPair) {
  const auto reference = reference_at({0.1, 0.2, 0.3, 0.4, 0.5});
  const auto run = run_at({0.1, 0.4, 0.5});
  const MatchResult m = match_events(run, reference, float128(1));
  EXPECT_TRUE(counts_are(m, 3, 2, 0));
  EXPECT_EQ(m.run_of_reference[1], kUnmatched);
  EXPECT_EQ(m.run_of_reference[2], kUnmatched);
  EXPECT_EQ(m.reference_of_run[1], 3);
  EXPECT_FALSE(event_error(m, run, reference, 2).has_value());
}

// An extra run event in a window whose reference event is already taken is spurious.
TEST(Matching, SpuriousEvent) {
  const auto reference = reference_at({0.1, 0.2, 0.3});
  const auto run = run_at({0.1, 0.2, 0.21, 0.3});
  const MatchResult m = match_events(run, reference, float128(1));
  EXPECT_TRUE(counts_are(m, 3, 0, 1));
  EXPECT_EQ(m.reference_of_run[2], kUnmatched);
}

// An event shifted by less than half the gap to its neighbours matches, with the signed error
// t~ - t*; shifted beyond the middle of the gap it belongs to the neighbour's window, where
// the neighbour is already matched: one missed and one spurious.
TEST(Matching, ShiftedEvent) {
  const auto reference = reference_at({0.1, 0.2, 0.3});
  {
    const auto run = run_at({0.1, 0.24, 0.3});
    const MatchResult m = match_events(run, reference, float128(1));
    EXPECT_TRUE(counts_are(m, 3, 0, 0));
    const auto error = event_error(m, run, reference, 2);
    ASSERT_TRUE(error.has_value());
    EXPECT_NEAR(error->t, 0.04, 1e-15);
    ASSERT_EQ(error->x.size(), 1u);
    EXPECT_NEAR(error->x[0], 0.4, 1e-14);
    EXPECT_NEAR(*max_time_error(m, run, reference), 0.04, 1e-15);
  }
  {
    const auto run = run_at({0.1, 0.26, 0.3});
    const MatchResult m = match_events(run, reference, float128(1));
    EXPECT_TRUE(counts_are(m, 2, 1, 1));
    EXPECT_EQ(m.run_of_reference[1], kUnmatched);
  }
}

// An event late by more than half a gap, with the neighbour's event missing: it takes the
// neighbour's window and is matched to the neighbour (nearest reference in its window).
TEST(Matching, LateEventTakesTheNeighboursWindow) {
  const auto reference = reference_at({0.1, 0.2, 0.3});
  const auto run = run_at({0.1, 0.26});
  const MatchResult m = match_events(run, reference, float128(1));
  EXPECT_EQ(m.reference_of_run[1], 2);
  EXPECT_TRUE(counts_are(m, 2, 1, 0));  // the event at 0.2 is missed
}

// The guard names must agree: a run event at the right time by another guard is spurious and
// the reference event missed.
TEST(Matching, GuardMustAgree) {
  const auto reference = reference_at({0.1, 0.2}, {"p3", "saw_reset"});
  const auto run = run_at({0.1, 0.2}, {"p3", "p1"});
  const MatchResult m = match_events(run, reference, float128(1));
  EXPECT_TRUE(counts_are(m, 1, 1, 1));
}

// A reference event at t_end (rounding may put the run's on either side of t_end) whose
// window reaches past the end of the run is open when unmatched, not missed; an earlier
// unmatched event whose window closed before t_end is missed.
TEST(Matching, OpenWindowAtTheEnd) {
  const auto reference = reference_at({0.1, 0.2, 0.3, 0.4});
  const auto run = run_at({0.1, 0.3});
  const MatchResult m = match_events(run, reference, float128("0.4"));
  // 0.2 (window [0.15, 0.25]) is missed; 0.4 (window [0.35, 0.45], past t_end = 0.4) is open.
  EXPECT_TRUE(counts_are(m, 2, 1, 0, 1));
}

// A chain at the run's start t0 (the model starts on a switching surface) is compared only
// with reference events at t0: without one it is neither matched nor spurious, and does not
// take the first reference event's window (whose left half is borrowed from its right).
TEST(Matching, EventsAtTheStartAreComparedOnlyWithEventsAtTheStart) {
  const auto reference = reference_at({0.16, 0.52, 1.16}, {"lift", "touch", "lift"});
  {
    const auto run = run_at({0.0, 0.16, 0.52, 1.16}, {"lift", "lift", "touch", "lift"});
    const MatchResult m = match_events(run, reference, float128(2), float128(0));
    EXPECT_TRUE(counts_are(m, 3, 0, 0));
    EXPECT_EQ(m.at_start, 1u);
    EXPECT_EQ(m.reference_of_run[0], kUnmatched);
    EXPECT_EQ(m.reference_of_run[1], 0);
    // Without t0 the start event would take reference event 1 and leave the real one spurious.
    const MatchResult blind = match_events(run, reference, float128(2));
    EXPECT_EQ(blind.reference_of_run[0], 0);
    EXPECT_EQ(blind.spurious, 1u);
  }
  {
    const auto with_start = reference_at({0.0, 0.16}, {"lift", "lift"});
    const auto run = run_at({0.0, 0.16}, {"lift", "lift"});
    const MatchResult m = match_events(run, with_start, float128(1), float128(0));
    EXPECT_TRUE(counts_are(m, 2, 0, 0));
    EXPECT_EQ(m.at_start, 0u);
  }
}

// A lone reference event has an unbounded window; no reference at all makes every run event
// spurious.
TEST(Matching, LoneAndEmptyReferences) {
  const auto lone = reference_at({0.5});
  const auto run = run_at({3.0});
  const MatchResult m = match_events(run, lone, float128(10));
  EXPECT_TRUE(counts_are(m, 1, 0, 0));
  const MatchResult none = match_events(run, std::vector<ReferenceEvent>{}, float128(10));
  EXPECT_TRUE(counts_are(none, 0, 0, 1));
  EXPECT_FALSE(max_time_error(none, run, std::vector<ReferenceEvent>{}).has_value());
}

// Event numbers outside the reference have no error; numbers are 1-based.
TEST(Matching, EventNumbers) {
  const auto reference = reference_at({0.1, 0.2});
  const auto run = run_at({0.1, 0.2});
  const MatchResult m = match_events(run, reference, float128(1));
  EXPECT_FALSE(event_error(m, run, reference, 0).has_value());
  EXPECT_FALSE(event_error(m, run, reference, 3).has_value());
  EXPECT_TRUE(event_error(m, run, reference, 2).has_value());
}

}  // namespace
}  // namespace hysim::study
