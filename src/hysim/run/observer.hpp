// The observer of a run: receives samples, events, steps and the result as they happen.
#pragma once

#include <initializer_list>
#include <span>
#include <vector>

#include "hysim/core/model.hpp"
#include "hysim/run/options.hpp"
#include "hysim/run/result.hpp"

namespace hysim {

// Receives the run as it happens. Default implementations ignore everything.
template <class S>
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_start(const Model<S>& /*model*/, const SimulationOptions& /*options*/) {}
  // A point of the trajectory: each accepted step's end, and both sides of each event.
  virtual void on_sample(S /*t*/, int /*mode*/, std::span<const S> /*x*/) {}
  virtual void on_event(const EventRecord<S>& /*record*/) {}
  // An accepted step [t, t + h] and what limited its length (the step log).
  virtual void on_step(S /*t*/, S /*h*/, StepLimit /*limit*/) {}
  virtual void on_finish(const RunResult<S>& /*result*/) {}
};

// Passes the run to several observers, in the order given (for example a CsvWriter and a
// ReportWriter, hysim/output/).
template <class S>
class Observers final : public Observer<S> {
 public:
  Observers(std::initializer_list<Observer<S>*> list) : list_(list) {}
  void on_start(const Model<S>& model, const SimulationOptions& options) override {
    for (auto* o : list_) o->on_start(model, options);
  }
  void on_sample(S t, int mode, std::span<const S> x) override {
    for (auto* o : list_) o->on_sample(t, mode, x);
  }
  void on_event(const EventRecord<S>& record) override {
    for (auto* o : list_) o->on_event(record);
  }
  void on_step(S t, S h, StepLimit limit) override {
    for (auto* o : list_) o->on_step(t, h, limit);
  }
  void on_finish(const RunResult<S>& result) override {
    for (auto* o : list_) o->on_finish(result);
  }

 private:
  std::vector<Observer<S>*> list_;
};

}  // namespace hysim
