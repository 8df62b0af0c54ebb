// Helpers shared by the tests: build a catalog model with overrides, and collect a run.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "hysim/simulator.hpp"
#include "hysim/models/catalog.hpp"
#include "hysim/peers/peers.hpp"

namespace hysim::testing {

// Every test program has the peers (the cvode strategy) in its catalog, as the hysim program does.
inline const bool kPeersRegistered = (register_peers(), true);

// `text` contains `part` (GoogleTest without gmock's matchers): EXPECT_TRUE(contains(msg, "rtol")).
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

template <class S>
Model<S> catalog_model(const std::string& name, const std::vector<std::pair<std::string, std::string>>& params = {}) {
  const ModelEntry& entry = find_model(name);
  ParameterValues values = entry.default_values();
  for (const auto& [key, value] : params) values.set(key, value);
  return entry.make<S>(values);
}

// Options of a run under `strategy` to t_end at tight tolerances (rtol 1e-10, atol 1e-12).
inline SimulationOptions tight_options(const std::string& strategy, double t_end) {
  SimulationOptions options;
  options.strategy = strategy;
  options.t_end = t_end;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  return options;
}

// Keeps every event row and every sample of a run.
template <class S>
struct Collected {
  struct Row {
    std::int64_t index;
    S t;
    int from, to;
    TransitionClass kind;
    std::string guard;
    std::vector<S> x_pre, x_post;
  };
  struct Sample {
    S t;
    int mode;
    std::vector<S> x;
  };
  std::vector<Row> rows;
  std::vector<Sample> samples;
};

template <class S>
class Collector final : public Observer<S> {
 public:
  explicit Collector(Collected<S>* out, bool keep_samples = false) : out_(out), keep_samples_(keep_samples) {}
  void on_sample(S t, int mode, std::span<const S> x) override {
    if (keep_samples_) out_->samples.push_back({t, mode, std::vector<S>(x.begin(), x.end())});
  }
  void on_event(const EventRecord<S>& r) override {
    out_->rows.push_back({r.index, r.t, r.from, r.to, r.kind, std::string(r.guard),
                          std::vector<S>(r.x_pre.begin(), r.x_pre.end()),
                          std::vector<S>(r.x_post.begin(), r.x_post.end())});
  }

 private:
  Collected<S>* out_;
  bool keep_samples_;
};

template <class S>
Collected<S> collect(const Model<S>& model, const SimulationOptions& options, bool keep_samples = false,
                     RunResult<S>* result = nullptr) {
  Collected<S> out;
  Collector<S> collector(&out, keep_samples);
  Simulator<S> simulator(model, options);
  RunResult<S> r = simulator.run(&collector);
  if (result) *result = std::move(r);
  return out;
}

// A run past a Zeno accumulation into a continuation where the state is 0 (a ball at rest on
// the floor): it reached t_end in mode `rest_mode` with every state 0, in fewer than 1000
// events, and its last row is the `zeno` row into that mode at t_zeno.
template <class S>
void expect_at_rest_after_zeno(const Model<S>& model, const RunResult<S>& result, const Collected<S>& run,
                               double t_end, const std::string& rest_mode) {
  ASSERT_TRUE(result.zeno_detected) << result.message;
  EXPECT_EQ(result.reason, RunReason::kReachedEnd);
  EXPECT_EQ(static_cast<double>(result.t), t_end);
  EXPECT_EQ(model.modes[static_cast<std::size_t>(result.mode)].name, rest_mode);
  for (const S& x : result.x) EXPECT_EQ(x, S(0));
  EXPECT_LT(result.stats.events, 1000);
  ASSERT_FALSE(run.rows.empty());
  EXPECT_EQ(run.rows.back().guard, "zeno");
  EXPECT_EQ(model.modes[static_cast<std::size_t>(run.rows.back().to)].name, rest_mode);
  EXPECT_EQ(run.rows.back().t, result.t_zeno);
}

}  // namespace hysim::testing
