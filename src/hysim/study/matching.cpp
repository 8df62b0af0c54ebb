#include "hysim/study/matching.hpp"

#include <algorithm>
#include <limits>

namespace hysim::study {

namespace {

using boost::multiprecision::abs;

struct Window {
  float128 lo, hi;
};

// The window of each reference event: half the gap to each neighbour (header comment).
std::vector<Window> windows_of(std::span<const ReferenceEvent> reference) {
  const float128 unbounded = std::numeric_limits<float128>::infinity();
  const std::size_t n = reference.size();
  std::vector<Window> windows(n);
  for (std::size_t j = 0; j < n; ++j) {
    const float128 t = reference[j].t;
    const bool has_left = j > 0, has_right = j + 1 < n;
    float128 left = has_left ? (t - reference[j - 1].t) / 2 : unbounded;
    float128 right = has_right ? (reference[j + 1].t - t) / 2 : unbounded;
    if (!has_left) left = right;
    if (!has_right) right = left;
    windows[j] = {t - left, t + right};
  }
  return windows;
}

}  // namespace

MatchResult match_events(std::span<const RunEvent> run, std::span<const ReferenceEvent> reference, float128 t_end,
                         float128 t0) {
  MatchResult result;
  result.reference_of_run.assign(run.size(), kUnmatched);
  result.run_of_reference.assign(reference.size(), kUnmatched);
  const std::vector<Window> windows = windows_of(reference);

  // The windows are in time order and neighbours only share an edge, so the candidates of
  // a run event are found by bisection on the windows' right ends: usually one, two on an edge.
  for (std::size_t i = 0; i < run.size(); ++i) {
    const RunEvent& event = run[i];
    const auto first = std::partition_point(windows.begin(), windows.end(),
                                            [&](const Window& w) { return w.hi < event.t; });
    const bool at_start = event.t == t0;
    std::ptrdiff_t best = kUnmatched;
    float128 best_distance = 0;
    for (auto w = first; w != windows.end() && w->lo <= event.t; ++w) {
      const auto j = static_cast<std::size_t>(w - windows.begin());
      if (result.run_of_reference[j] != kUnmatched || reference[j].guard != event.guard) continue;
      if (at_start && reference[j].t != t0) continue;
      const float128 distance = abs(event.t - reference[j].t);
      if (best == kUnmatched || distance < best_distance) {
        best = static_cast<std::ptrdiff_t>(j);
        best_distance = distance;
      }
    }
    if (best == kUnmatched) {
      ++(at_start ? result.at_start : result.spurious);
      continue;
    }
    result.reference_of_run[i] = best;
    result.run_of_reference[static_cast<std::size_t>(best)] = static_cast<std::ptrdiff_t>(i);
    ++result.matched;
  }
  for (std::size_t j = 0; j < reference.size(); ++j) {
    if (result.run_of_reference[j] != kUnmatched) continue;
    if (windows[j].hi > t_end) {
      ++result.open;
    } else {
      ++result.missed;
    }
  }
  return result;
}

std::optional<EventError> event_error(const MatchResult& match, std::span<const RunEvent> run,
                                      std::span<const ReferenceEvent> reference, std::size_t number) {
  if (number == 0 || number > reference.size()) return std::nullopt;
  const std::ptrdiff_t i = match.run_of_reference[number - 1];
  if (i == kUnmatched) return std::nullopt;
  const RunEvent& got = run[static_cast<std::size_t>(i)];
  const ReferenceEvent& want = reference[number - 1];
  EventError error;
  error.t = static_cast<double>(got.t - want.t);
  for (std::size_t k = 0; k < got.x.size() && k < want.x.size(); ++k) {
    error.x.push_back(static_cast<double>(got.x[k] - want.x[k]));
  }
  return error;
}

std::optional<double> max_time_error(const MatchResult& match, std::span<const RunEvent> run,
                                     std::span<const ReferenceEvent> reference) {
  std::optional<double> largest;
  for (std::size_t j = 0; j < reference.size(); ++j) {
    const std::ptrdiff_t i = match.run_of_reference[j];
    if (i == kUnmatched) continue;
    const double error = static_cast<double>(abs(run[static_cast<std::size_t>(i)].t - reference[j].t));
    if (!largest || error > *largest) largest = error;
  }
  return largest;
}

}  // namespace hysim::study
