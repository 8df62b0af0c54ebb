// Runs of one model under several option sets (solver, strategy, tolerance), each measured
// and matched against the model's reference: the engine of `hysim compare`, `hysim reproduce`
// and `hysim workprecision`.
//
// Each run is timed like `hysim run` does: the steady clock around Simulator::run minus the
// time spent in the observer that keeps the events. A run that throws InvalidArgument (a
// combination the engine does not offer, e.g. cvode in long double or in a build without
// SUNDIALS) is skipped with its message; a run that fails (RunReason::kFailed) keeps what it
// found up to the failure and its message. Other errors propagate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hysim/study/model.hpp"
#include "hysim/study/stopwatch.hpp"
#include "hysim/run/observer.hpp"
#include "hysim/study/matching.hpp"
#include "hysim/simulator.hpp"
#include "hysim/models/reference.hpp"

namespace hysim::study {

enum class Outcome { kCompleted, kFailed, kSkipped };
const char* outcome_name(Outcome outcome);

struct Evaluation {
  SimulationOptions options;
  Outcome outcome = Outcome::kCompleted;
  std::string note;              // the error message of a failed or skipped run
  RunStatistics stats;
  double wall_seconds = 0;
  std::vector<RunEvent> events;  // the first row of each event index
  std::optional<MatchResult> match;  // against the reference, when there is one

  // The solver as tables show it: the --solver name, or "cvode/BDF" for the cvode peer,
  // which brings its own integrator.
  std::string solver_label() const;
  // one_sided_events / events, when the run had events.
  std::optional<double> one_sided_share() const;
  // "" for a completed run, "failed: MESSAGE" or "skipped: MESSAGE" otherwise.
  std::string status_note() const;
};

// Keeps the first row of each event index (the event as matching sees it), timing itself.
// max_events > 0 keeps at most that many; overflowed() then says the run had more.
template <class S>
class EventCollector final : public Observer<S> {
 public:
  explicit EventCollector(std::vector<RunEvent>* events, std::size_t max_events = 0)
      : events_(events), max_events_(max_events) {}

  void on_event(const EventRecord<S>& record) override {
    ScopedTimer timer(&seconds_);
    if (record.index == last_index_) return;
    last_index_ = record.index;
    if (max_events_ > 0 && events_->size() >= max_events_) {
      overflowed_ = true;
      return;
    }
    RunEvent event;
    event.t = static_cast<float128>(record.t);
    event.guard = std::string(record.guard);
    for (const S& v : record.x_pre) event.x.push_back(static_cast<float128>(v));
    events_->push_back(std::move(event));
  }

  double seconds_in_observer() const { return seconds_; }
  bool overflowed() const { return overflowed_; }

 private:
  std::vector<RunEvent>* events_;
  std::size_t max_events_;
  std::int64_t last_index_ = 0;
  double seconds_ = 0;
  bool overflowed_ = false;
};

// One run of `model` under `options`: its events kept, matched against `reference` when given
// (the same as one entry of evaluate()). double, long double and float128.
template <class S>
Evaluation evaluate_run(const Model<S>& model, const SimulationOptions& options, const StrategySettings& settings = {},
                        const Reference* reference = nullptr);

// The reference events of the chosen model for runs to t_end, computed a little further
// (t_end + (t_end - t0) / 100) so that a run event just before t_end whose exact time is
// just after it still finds its partner. Nothing when the model has no reference or the
// reference does not cover these parameters; *why_not then says so.
std::optional<Reference> reference_for(const ModelChoice& choice, const ParameterValues& values, double t_end,
                                       std::string* why_not);

// True for the strategy that ignores --solver (cvode).
bool brings_own_solver(const std::string& strategy);

// Throws InvalidArgument when `options` would be rejected whatever the solver and strategy
// (a bad tolerance, t_end not above t0...): checked once, before a sweep, so that a user's
// mistake is an error and not a table of skipped runs. Uses options.solver and bisection.
void check_common_options(const ModelChoice& choice, const ParameterValues& values, const SimulationOptions& options);

// Every solver with every strategy, solver by solver, each a copy of `base`; the strategy
// that brings its own solver (cvode) appears once, in the first solver's block.
std::vector<SimulationOptions> solver_strategy_grid(const SimulationOptions& base,
                                                    const std::vector<std::string>& solvers,
                                                    const std::vector<std::string>& strategies);

// Runs the chosen model once per option set, in the chosen scalar type, on `jobs` threads (0:
// every core; hysim/ensemble). The evaluations come back in the order of `runs`, with the same
// numbers whatever `jobs` (only the wall times differ).
// `settings`: the own options of registered strategies, by strategy name, for the runs of each.
std::vector<Evaluation> evaluate(const ModelChoice& choice, const ParameterValues& values,
                                 const std::vector<SimulationOptions>& runs, const Reference* reference, int jobs = 0,
                                 const SettingsByStrategy& settings = {});

// Columns of signed event errors in the layout of 004, Table 1: t~_k - t*_k for each event
// number k, then x~_k - x*_k for each chosen state and each k. Headers read "dt1", "dt7",
// "domega1", "domega7", ...; a cell is empty when there is no reference or event k of the
// reference was not matched.
struct ErrorColumns {
  std::vector<std::size_t> numbers;      // 1-based reference event numbers, e.g. {1, 7}
  std::vector<std::string> state_names;  // the states shown, by name
  std::vector<std::size_t> states;       // their indices in the model's state layout

  std::vector<std::string> headers() const;
  std::vector<std::optional<double>> values(const Evaluation& run, const Reference* reference) const;
};

// The event numbers of 004, Table 1.
inline const std::vector<std::size_t> kTableOneEvents = {1, 7};

// Every state of the model (compare) or the named ones (reproduce: omega and phi).
ErrorColumns error_columns(const std::vector<std::string>& model_states, const std::vector<std::size_t>& numbers,
                           const std::vector<std::string>& shown = {});

}  // namespace hysim::study
