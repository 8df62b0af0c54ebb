// The rule interpreter, as the papers run a rule table (001, "интерпретатор правил"; 002):
// a cycle scans the rules and advances time by dt. It reproduces the papers' own numbers,
// fixed step and all; the engine runs the same table with located events (docs/rule-tables.md).
//
// Once, before the first cycle: the init rules in order.
// Each cycle k (t_k = k dt):
//   1. situation rules (4), in order: each logic state starts from its initial value, and a
//      rule whose situation holds (predicates from the current real values, logic states
//      from the previous cycle) sets its actions; a state that should persist says so with
//      a rule that keeps it (q & !release -> q); an event is True only in the cycle in
//      which its rules first hold (the previous cycle's situation did not set it);
//   2. transformation rules (5), in order of priority, each when its situation holds:
//      y := tau(k, a1, a2) with the values as they are at that moment, so that a rule reads
//      what the rules before it wrote in this cycle (integrals are explicit Euler steps of
//      their argument's current value);
//   3. t := (k + 1) dt.
// Predicates (3) are evaluated whenever a rule reads them, from the current values.
//
// How time advances (InterpreterOptions::time). 001 names two modes: in model time
// ("режим модельного времени") time advances after each cycle by the user's dt; in real time
// ("режим реального времени") the duration of each cycle is measured and time advances by
// it, so that the model keeps up with the real process and its accuracy depends on the
// machine (TimeMode::kMeasured). A third mode, hysim's, keeps dt fixed and paces the cycles
// to the wall clock: a cycle that finishes ahead of t waits (TimeMode::kPaced: fixed steps
// for training equipment or hardware in the loop).
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hysim/rules/procedures.hpp"
#include "hysim/rules/table.hpp"

namespace hysim::rules {

enum class TimeMode {
  kModel,     // t += dt per cycle, as fast as the machine goes (001's model time)
  kPaced,     // t += dt per cycle, each cycle waiting for the wall clock to reach t
  kMeasured,  // t += the measured wall duration of the cycle (001's real time); no dt
};

struct InterpreterOptions {
  double dt = 0;                  // the cycle in model time; 0: the table's [model] dt
  double t_end = 0;               // 0: the table's [model] t_end
  TimeMode time = TimeMode::kModel;
  std::int64_t output_every = 1;  // model and paced time: pass every N-th cycle to the output (and the last)
  double output_step = 0;         // measured time: pass the first cycle at or past each multiple
                                  //     of it (and the last); 0: every cycle
  std::int64_t cycle_limit = 2'000'000'000;  // a run of more cycles is refused before it starts

  // Throws InvalidArgument naming the option.
  void validate() const;
};

// What the interpreter passes on as it runs. An output that cannot go on (a write failed)
// throws hysim::Error: the run ends there, with InterpreterEnd::kFailed and the message.
class InterpreterOutput {
 public:
  virtual ~InterpreterOutput() = default;
  // Every real variable (parameters included, in RuleTable::reals order) and every logic
  // variable (RuleTable::logic order; predicates evaluated at t) after cycle k, and at t = 0.
  virtual void on_sample(double /*t*/, std::span<const double> /*reals*/, std::span<const char> /*logic*/) {}
  // A logic state or predicate changed value at the end of the cycle that ends at t.
  virtual void on_switch(double /*t*/, int /*logic*/, bool /*value*/) {}
};

// Why a run ended: t_end, a stop asked for (Interpreter::stop_when), or its output failed.
enum class InterpreterEnd { kReachedEnd, kInterrupted, kFailed };
// "reached t_end", "interrupted", "failed" (as the engine's RunReason names them).
const char* end_name(InterpreterEnd end);

struct InterpreterResult {
  InterpreterEnd end = InterpreterEnd::kReachedEnd;
  std::string message;          // kFailed: what failed
  std::int64_t cycles = 0;
  double t = 0;                 // the model time reached
  std::vector<double> reals;    // the values at the end
  std::vector<char> logic;      // the logic values at the end
  std::int64_t switches = 0;    // changes of logic values
  // Paced and measured time: the cycles against the wall clock. Paced: the work of a cycle
  // (its computation, without the wait) and the lag of a cycle's end behind its model time.
  // Measured: each cycle's dt, the wall time between the starts of two cycles (the model
  // time is their sum), and no lag but the last cycle's.
  double wall_seconds = 0;          // from the first cycle to the last
  double max_cycle_seconds = 0;     // the longest cycle
  double min_cycle_seconds = 0;     // the shortest cycle
  double mean_cycle_seconds = 0;
  double max_lag_seconds = 0;       // paced: the largest delay of a cycle's end behind its model time
  double final_lag_seconds = 0;     // wall - model time at the end
};

class Interpreter {
 public:
  Interpreter(const RuleTable& table, InterpreterOptions options);
  InterpreterResult run(InterpreterOutput* output = nullptr);
  // The run polls *flag before each cycle (and while paced time waits) and ends with
  // InterpreterEnd::kInterrupted once it is set, after the last complete cycle.
  void stop_when(const std::atomic<bool>* flag) { stop_ = flag; }

  double dt() const { return dt_; }
  double t_end() const { return t_end_; }

 private:
  const RuleTable& table_;
  InterpreterOptions options_;
  double dt_, t_end_;
  double cycle_dt_;                    // this cycle's dt: dt_, or the measured one
  std::vector<double> x_;              // real variables
  std::vector<char> q_, q_next_;       // logic states (predicates evaluated on demand)
  std::vector<char> level_;            // per event: whether its situation held last cycle
  std::vector<RuleMemory> memory_;     // per rule: what its procedure keeps between cycles
  const std::atomic<bool>* stop_ = nullptr;  // stop_when

  bool stop_requested() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

  double value(const Operand& o) const { return o.variable >= 0 ? x_[static_cast<std::size_t>(o.variable)] : o.number; }
  bool holds(int logic) const;
  bool holds(const Condition& c) const { return c.logic < 0 || holds(c.logic) == c.must_be; }
  void initialise();
  void situations();
  void apply(const TransformationRule& rule, RuleMemory& memory);
  void logic_values(std::vector<char>* out) const;
};

}  // namespace hysim::rules
