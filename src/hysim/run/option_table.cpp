#include "hysim/run/option_table.hpp"

#include <charconv>
#include <type_traits>

namespace hysim {

const std::vector<OptionInfo>& option_table() {
  using O = SimulationOptions;
  using G = OptionGroup;
  // name, field, unit, group, help
  static const std::vector<OptionInfo> table = {
      {"t_end", &O::t_end, "s", G::kEnd,
       "end of the run; must exceed the model's t0"},
      {"solver", &O::solver, "", G::kMethod,
       "integrator, a name from `hysim list`; not used by strategies cvode and cvode-adams (their own)"},
      {"linear_solver", &O::linear_solver, "", G::kMethod,
       "rosenbrock4 and ndf: how the iteration matrix I - c J is factored: auto (sparse LU on the model's "
       "Jacobian pattern, which model files give, for 64 states or more and at most 10 % nonzeros; dense LU "
       "otherwise), dense, sparse"},
      {"strategy", &O::strategy, "", G::kMethod,
       "event-detection strategy, a name from `hysim list` (docs/strategies.md); cvode: double only"},
      {"rtol", &O::rtol, "", G::kTolerance,
       "relative tolerance of the adaptive solvers and of cvode, 0 < rtol < 1"},
      {"atol", &O::atol, "", G::kTolerance,
       "absolute tolerance of the adaptive solvers and of cvode, > 0; NAME=VALUE (repeatable): that of one "
       "state (the others keep the scalar)"},
      {"initial_step", &O::initial_step, "s", G::kStep,
       "first step of an adaptive solver (cvode: at the start only); 0: estimated "
       "(Hairer & Wanner; cvode: its own)"},
      {"max_step", &O::max_step, "s", G::kStep,
       "largest step; 0: unlimited"},
      {"min_step", &O::min_step, "s", G::kStep,
       "an adaptive solver's own steps are not shorter, and the run fails if it needs a smaller "
       "step; also the step of a chattering mode (except under gamma); 0: 16 eps max(|t|, 1); "
       "cvode: its minimum step when > 0"},
      {"fixed_step", &O::fixed_step, "s", G::kStep,
       "step of rk4 and euler, > 0"},
      {"event_tolerance", &O::event_tolerance, "s", G::kStep,
       "width of the final location bracket; 0: one ulp of t"},
      {"output_step", &O::output_step, "s", G::kStep,
       "write the trajectory on the grid t0 + k output_step from the dense output, without "
       "changing the steps or the events (both sides of each event, t0 and t_end are always "
       "written); 0: at the solver's step ends; not with cvode"},
      {"gamma", &O::gamma, "", G::kTuning,
       "strategy gamma: along the linear prediction a step leaves an approaching event function "
       "at least this fraction of its value, covering 1 - gamma of the predicted time to the "
       "surface (004, Algorithm 2), 0 < gamma < 1"},
      {"h_min", &O::h_min, "s", G::kTuning,
       "strategy gamma: the smallest step of the approach, which bounds its event-time error, "
       "and the step of a chattering mode (004: 1e-6), > 0"},
      {"refine_gamma", &O::refine_gamma, "", G::kTuning,
       "strategy gamma-refine: a step covers at most this multiple of the predicted time to "
       "an approaching guard, 0 < refine_gamma < 2"},
      {"samples", &O::samples, "", G::kTuning,
       "strategy sampled: interior points of each step's dense output checked, >= 1"},
      {"certified_depth", &O::certified_depth, "", G::kTuning,
       "strategy certified: the most halvings of a step before a part is read at its end alone, "
       "1 to 60"},
      {"certified_level", &O::certified_level, "", G::kTuning,
       "strategy certified: what the proof covers: 1 the dense output (the computed trajectory), 2 the "
       "exact flow from each step's start (model files of at most 16 states)"},
      {"certified_strict", &O::certified_strict, "", G::kTuning,
       "strategy certified: a part of a step it cannot prove fails the run; false: a warning, "
       "counted in stats.json, and the run goes on"},
      {"sliding", &O::sliding, "", G::kTuning,
       "at a sliding arrival, move along the surface with the equivalent (Filippov) dynamics; "
       "false: the two modes chatter at the minimum step"},
      {"zeno_events", &O::zeno_events, "", G::kTuning,
       "Zeno: consecutive intervals between events (pinnacles, or ordinary switches repeating their modes) that must shrink geometrically, >= 3"},
      {"zeno_ratio_tolerance", &O::zeno_ratio_tolerance, "", G::kTuning,
       "Zeno: relative spread allowed among the ratios of those intervals, > 0"},
      {"zeno_horizon", &O::zeno_horizon, "s", G::kTuning,
       "Zeno: declared once the predicted time left to the accumulation is at most this, > 0"},
      {"chain_limit", &O::chain_limit, "", G::kLimit,
       "most modes one event may visit (and most consecutive events at one time), >= 1"},
      {"event_limit", &O::event_limit, "", G::kLimit,
       "stop after this many events (the run then ends normally, reason \"event limit\"), >= 1"},
      {"stall_events", &O::stall_events, "", G::kLimit,
       "fail after this many events in a row, each within 64 ulps of t of the one before: the "
       "run makes no progress (chattering at the time resolution), >= 1"},
  };
  return table;
}

std::string OptionInfo::flag() const {
  std::string text = std::string("--") + name;
  for (char& c : text) c = c == '_' ? '-' : c;
  return text;
}

std::string OptionInfo::negated_flag() const { return "--no-" + flag().substr(2); }

const char* OptionInfo::kind() const {
  // As in OptionMember. "number": a Decimal, kept as written and read in the run's scalar type.
  static constexpr const char* kKinds[] = {"number", "int", "int64", "bool", "string"};
  static_assert(std::size(kKinds) == std::variant_size_v<OptionMember>);
  return kKinds[member.index()];
}

std::string OptionInfo::description() const {
  std::string text = *unit ? std::string("[").append(unit).append("] ") : std::string();
  return text.append(help);
}

std::string option_text(const SimulationOptions& options, const OptionInfo& info) {
  return std::visit(
      [&]<class T>(T SimulationOptions::*member) -> std::string {
        const T& value = options.*member;
        if constexpr (std::is_same_v<T, std::string>) {
          return value;
        } else if constexpr (std::is_same_v<T, Decimal>) {
          return value.str();
        } else if constexpr (std::is_same_v<T, bool>) {
          return value ? "true" : "false";
        } else {
          char text[32];
          return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
        }
      },
      info.member);
}

}  // namespace hysim
