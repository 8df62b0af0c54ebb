// Helpers for the tests that hold a run against a model's reference (models/reference.hpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "hysim/models/catalog.hpp"
#include "test_support.hpp"

namespace hysim::testing {

// The reference of a catalog model for its default values with overrides.
inline Reference catalog_reference(const std::string& name, double t_end,
                                   const std::vector<std::pair<std::string, std::string>>& params = {}) {
  const ModelEntry& entry = find_model(name);
  ParameterValues values = entry.default_values();
  for (const auto& [key, value] : params) values.set(key, value);
  return entry.reference(values, t_end);
}

// The largest differences between a run's events and the reference, event by event.
struct ReferenceErrors {
  long double max_dt = 0;  // max |t - t*|
  long double max_dx = 0;  // max over events and components of |x_pre - x*|
};

// Expects the run to have exactly the reference's events (same count, modes and guards, in
// order) and returns the largest time and state differences. Only the first transition of
// each event is compared, as the reference lists one row per event.
template <class S>
ReferenceErrors compare_with_reference(const Model<S>& model, const Collected<S>& run, const Reference& reference) {
  ReferenceErrors errors;
  // An event is its chain's first row (the mode left, the guard that fired, x-).
  std::vector<const typename Collected<S>::Row*> firsts;
  for (const auto& row : run.rows) {
    if (firsts.empty() || firsts.back()->index != row.index) firsts.push_back(&row);
  }
  EXPECT_EQ(firsts.size(), reference.events.size()) << "missed or spurious events";
  const std::size_t n = std::min(firsts.size(), reference.events.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& row = *firsts[i];
    const auto& ref = reference.events[i];
    EXPECT_EQ(model.modes[static_cast<std::size_t>(row.from)].name, ref.from) << "event " << i + 1;
    EXPECT_EQ(model.modes[static_cast<std::size_t>(row.to)].name, ref.to) << "event " << i + 1;
    EXPECT_EQ(row.guard, ref.guard) << "event " << i + 1;
    // Differences in float128 (exact widening of double and long double), then narrowed.
    const float128 dt = abs(static_cast<float128>(row.t) - ref.t);
    errors.max_dt = std::max(errors.max_dt, static_cast<long double>(dt));
    for (std::size_t j = 0; j < ref.x.size() && j < row.x_pre.size(); ++j) {
      const float128 dx = abs(static_cast<float128>(row.x_pre[j]) - ref.x[j]);
      errors.max_dx = std::max(errors.max_dx, static_cast<long double>(dx));
    }
  }
  return errors;
}

}  // namespace hysim::testing
