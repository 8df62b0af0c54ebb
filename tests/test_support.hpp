// Helpers shared by the tests: build a catalog model with overrides, and collect a run.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/simulator.hpp"
#include "models/catalog.hpp"

namespace hysim::testing {

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

}  // namespace hysim::testing
