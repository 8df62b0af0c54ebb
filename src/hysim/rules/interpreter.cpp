#include "hysim/rules/interpreter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "hysim/core/errors.hpp"

namespace hysim::rules {

namespace {

using Clock = std::chrono::steady_clock;

// Real time, after the cycle that began at `cycle_start` and ends at model time t: records
// the cycle's work and its lag behind the wall clock, then waits until the wall clock reaches
// t. It sleeps only when a millisecond ahead: short cycles are paced in batches. A long wait
// (a cycle of seconds) is cut into slices, so that a stop (*stop) is seen within one.
void pace(Clock::time_point start, Clock::time_point cycle_start, double t, const std::atomic<bool>* stop,
          double* busy, InterpreterResult* result) {
  const Clock::time_point done = Clock::now();
  const double work = std::chrono::duration<double>(done - cycle_start).count();
  *busy += work;
  result->max_cycle_seconds = std::max(result->max_cycle_seconds, work);
  const double ahead = t - std::chrono::duration<double>(done - start).count();
  result->max_lag_seconds = std::max(result->max_lag_seconds, -ahead);
  if (ahead <= 1e-3) return;
  const Clock::time_point wake = done + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(ahead));
  const auto stopped = [&] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  while (!stopped() && Clock::now() < wake) {
    std::this_thread::sleep_for(std::min<Clock::duration>(wake - Clock::now(), std::chrono::milliseconds(50)));
  }
}

// The wall time since `since`, once the clock has moved past it (a cycle's dt is never 0).
double measured_dt(Clock::time_point since, Clock::time_point* now) {
  do {
    *now = Clock::now();
  } while (*now <= since);
  return std::chrono::duration<double>(*now - since).count();
}

}  // namespace

const char* end_name(InterpreterEnd end) {
  switch (end) {
    case InterpreterEnd::kReachedEnd: return "reached t_end";
    case InterpreterEnd::kInterrupted: return "interrupted";
    case InterpreterEnd::kFailed: return "failed";
  }
  return "?";
}

void InterpreterOptions::validate() const {
  if (!(dt >= 0) || !std::isfinite(dt)) throw InvalidArgument("option dt must be a finite number > 0 (0: the table's)");
  if (!(t_end >= 0) || !std::isfinite(t_end)) throw InvalidArgument("option t_end must be a finite number > 0 (0: the table's)");
  if (output_every < 1) throw InvalidArgument("option output_every must be at least 1");
  if (!(output_step >= 0) || !std::isfinite(output_step)) throw InvalidArgument("option output_step must be a finite number >= 0");
  if (cycle_limit < 1) throw InvalidArgument("option cycle_limit must be at least 1");
}

Interpreter::Interpreter(const RuleTable& table, InterpreterOptions options)
    : table_(table), options_(options), dt_(options.dt > 0 ? options.dt : table.dt),
      t_end_(options.t_end > 0 ? options.t_end : table.t_end), cycle_dt_(dt_) {
  options_.validate();
  if (options_.time == TimeMode::kMeasured) {
    if (options_.dt > 0) throw InvalidArgument("option dt: in real time (measured) each cycle's dt is its measured duration");
    for (const TransformationRule& rule : table.rules) {
      if (rule.procedure != Procedure::kDelay) continue;
      throw InvalidArgument(table.file + ":" + std::to_string(rule.where.line) + ": rule " + std::to_string(rule.number) +
                            ": a delay keeps round(tau / dt) past values and needs a fixed dt; real time (measured) "
                            "has none: run it in model or paced time");
    }
  }
  const double cycles = std::ceil(t_end_ / dt_);
  if (options_.time != TimeMode::kMeasured && !(cycles <= static_cast<double>(options_.cycle_limit))) {
    throw InvalidArgument("the rule table " + table.file + " would run " + std::to_string(cycles) +
                          " cycles (t_end / dt), more than the limit of " + std::to_string(options_.cycle_limit) +
                          ": raise dt or lower t_end");
  }
  for (const TransformationRule& rule : table.rules) {
    if (rule.procedure != Procedure::kDelay) continue;
    const double cells = rule.parameter("tau", 0.0) / dt_;
    if (!(cells <= 1e8)) {
      throw InvalidArgument(table.file + ":" + std::to_string(rule.where.line) + ": rule " + std::to_string(rule.number) +
                            ": a delay of " + std::to_string(cells) + " cycles (tau / dt) is more than 1e8 this "
                            "interpreter keeps: raise dt");
    }
  }
  memory_.assign(table.rules.size(), RuleMemory{});
}

bool Interpreter::holds(int logic) const {
  const LogicVariable& v = table_.logic[static_cast<std::size_t>(logic)];
  if (v.kind != LogicKind::kPredicate) return q_[static_cast<std::size_t>(logic)] != 0;
  // Rule (3): the conjunction of x1 REL a + x2.
  for (const RangeTerm& term : v.terms) {
    const double left = x_[static_cast<std::size_t>(term.x1)];
    const double right = term.a + (term.x2 >= 0 ? x_[static_cast<std::size_t>(term.x2)] : 0.0);
    bool ok = false;
    switch (term.relation) {
      case RangeRelation::kLess: ok = left < right; break;
      case RangeRelation::kLessEqual: ok = left <= right; break;
      case RangeRelation::kGreater: ok = left > right; break;
      case RangeRelation::kGreaterEqual: ok = left >= right; break;
    }
    if (!ok) return false;
  }
  return true;
}

// Rule (4) for every situation rule: states start from their initial values; situations read
// the previous cycle's states and the current predicates.
void Interpreter::situations() {
  for (std::size_t i = 0; i < table_.logic.size(); ++i) {
    q_next_[i] = table_.logic[i].kind == LogicKind::kPredicate ? 0 : static_cast<char>(table_.logic[i].initial);
  }
  for (const SituationRule& rule : table_.situation_rules) {
    bool all = true;
    for (const Literal& l : rule.situation) {
      if (holds(l.logic) == l.negated) {
        all = false;
        break;
      }
    }
    if (!all) continue;
    for (const Literal& action : rule.actions) q_next_[static_cast<std::size_t>(action.logic)] = action.negated ? 0 : 1;
  }
  for (std::size_t i = 0; i < table_.logic.size(); ++i) {
    if (table_.logic[i].kind == LogicKind::kState) q_[i] = q_next_[i];
    if (table_.logic[i].kind == LogicKind::kEvent) {  // True in the cycle its situation starts
      q_[i] = static_cast<char>(q_next_[i] != 0 && level_[i] == 0);
      level_[i] = q_next_[i];
    }
  }
}

// Rule (5): y := tau(k, a1, a2), as rules/procedures.hpp says for the rule's procedure.
void Interpreter::apply(const TransformationRule& rule, RuleMemory& memory) {
  double& y = x_[static_cast<std::size_t>(rule.variable)];
  const double a1 = value(rule.a1);
  const double a2 = rule.a2 ? value(*rule.a2) : 0.0;
  procedure_info(rule.procedure).cycle(rule, CycleValues{y, rule.coefficient, a1, a2, cycle_dt_}, memory);
}

void Interpreter::logic_values(std::vector<char>* out) const {
  out->resize(table_.logic.size());
  for (std::size_t i = 0; i < table_.logic.size(); ++i) (*out)[i] = static_cast<char>(holds(static_cast<int>(i)));
}

// The values before the first cycle: the initial ones, then the init rules; the memory of
// the cycle rules from there, and the first situations.
void Interpreter::initialise() {
  x_.clear();
  for (const auto& v : table_.reals) x_.push_back(v.initial);
  q_.assign(table_.logic.size(), 0);
  for (std::size_t i = 0; i < table_.logic.size(); ++i) q_[i] = static_cast<char>(table_.logic[i].initial);
  q_next_ = q_;
  level_.assign(table_.logic.size(), 0);

  // Init rules, once, in order (memoryless procedures only: the reader checks).
  for (const TransformationRule& rule : table_.init_rules) {
    RuleMemory none;  // kept by no procedure an init rule may have
    if (holds(rule.condition)) apply(rule, none);
  }
  // Memory of the cycle rules starts from the values after initialisation.
  for (std::size_t i = 0; i < table_.rules.size(); ++i) {
    memory_[i] = start_memory(table_.rules[i], value(table_.rules[i].a1), dt_);
  }
  situations();
}

InterpreterResult Interpreter::run(InterpreterOutput* output) {
  initialise();
  InterpreterResult result;
  std::vector<char> logic, logic_before;
  logic_values(&logic);
  const bool measured = options_.time == TimeMode::kMeasured, paced = options_.time == TimeMode::kPaced;
  const auto cycles = measured ? options_.cycle_limit : static_cast<std::int64_t>(std::ceil(t_end_ / dt_ - 1e-9));
  const Clock::time_point start = Clock::now();
  Clock::time_point cycle_start = start;
  double busy = 0, t = 0, next_output = options_.output_step;
  result.min_cycle_seconds = measured ? std::numeric_limits<double>::infinity() : 0.0;
  try {  // an output that fails ends the run (InterpreterOutput)
    if (output) output->on_sample(0.0, x_, logic);
    for (std::int64_t k = 0; k < cycles && t < t_end_; ++k) {
      if (stop_requested()) {
        result.end = InterpreterEnd::kInterrupted;
        break;
      }
      if (measured) {  // 001: the cycle that ends now advances time by its measured duration
        const Clock::time_point before = cycle_start;
        cycle_dt_ = measured_dt(before, &cycle_start);
        result.max_cycle_seconds = std::max(result.max_cycle_seconds, cycle_dt_);
        result.min_cycle_seconds = std::min(result.min_cycle_seconds, cycle_dt_);
      } else if (paced) {
        cycle_start = Clock::now();
      }
      logic_before = logic;
      if (k > 0) situations();
      for (std::size_t i = 0; i < table_.rules.size(); ++i) {
        if (holds(table_.rules[i].condition)) apply(table_.rules[i], memory_[i]);
      }
      t = measured ? t + cycle_dt_ : std::min(static_cast<double>(k + 1) * dt_, t_end_);
      logic_values(&logic);
      for (std::size_t i = 0; i < logic.size(); ++i) {
        if (logic[i] == logic_before[i]) continue;
        ++result.switches;
        if (output) output->on_switch(t, static_cast<int>(i), logic[i] != 0);
      }
      const bool last = t >= t_end_ || k + 1 == cycles;
      bool sample = last;
      if (measured && options_.output_step > 0) {
        if (t >= next_output) sample = true;
        while (next_output <= t) next_output += options_.output_step;
      } else {
        sample = sample || measured || (k + 1) % options_.output_every == 0;
      }
      if (output && sample) output->on_sample(t, x_, logic);
      result.cycles = k + 1;
      result.t = t;
      if (paced) pace(start, cycle_start, t, stop_, &busy, &result);
    }
  } catch (const Error& e) {
    result.end = InterpreterEnd::kFailed;
    result.message = e.what();
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (options_.time != TimeMode::kModel && result.cycles > 0) {
    result.mean_cycle_seconds = (measured ? result.t : busy) / static_cast<double>(result.cycles);
    result.final_lag_seconds = result.wall_seconds - result.t;
  }
  if (!measured || result.cycles == 0) result.min_cycle_seconds = 0;
  result.reals = x_;
  result.logic = logic;
  return result;
}

}  // namespace hysim::rules
