#include "hysim/run/option_table.hpp"

#include <charconv>
#include <type_traits>

namespace hysim {

const std::vector<OptionInfo>& option_table() {
  using O = SimulationOptions;
  using G = OptionGroup;
  static const std::vector<OptionInfo> table = {
      {"t_end", "s", G::kEnd, "end of the run; must exceed the model's t0", &O::t_end},
      {"solver", "", G::kMethod, "integrator, a name from `hysim list`; not used by strategy cvode", &O::solver},
      {"strategy", "", G::kMethod, "event-detection strategy, a name from `hysim list` (docs/strategies.md); cvode: double only",
       &O::strategy},
      {"rtol", "", G::kTolerance, "relative tolerance of the adaptive solvers and of cvode, > 0", &O::rtol},
      {"atol", "", G::kTolerance, "absolute tolerance of the adaptive solvers and of cvode, >= 0", &O::atol},
      {"initial_step", "s", G::kStep, "first step of an adaptive solver (cvode: at the start only); 0: estimated (Hairer & Wanner; cvode: its own)",
       &O::initial_step},
      {"max_step", "s", G::kStep, "largest step; 0: unlimited", &O::max_step},
      {"min_step", "s", G::kStep,
       "the run fails if an adaptive solver needs a smaller step; also the step of a chattering mode "
       "(except under gamma); 0: 16 eps max(|t|, 1); cvode: its minimum step when > 0",
       &O::min_step},
      {"fixed_step", "s", G::kStep, "step of rk4 and euler, > 0", &O::fixed_step},
      {"event_tolerance", "s", G::kStep, "width of the final location bracket; 0: one ulp of t",
       &O::event_tolerance},
      {"gamma", "", G::kTuning,
       "strategy gamma: a step covers at most this fraction of the predicted time to an approaching guard "
       "(004, Algorithm 2), 0 < gamma < 1",
       &O::gamma},
      {"h_min", "s", G::kTuning,
       "strategy gamma: the smallest step of the approach, which bounds its event-time error, and the step of "
       "a chattering mode (004: 1e-6), > 0",
       &O::h_min},
      {"refine_gamma", "", G::kTuning,
       "strategy gamma-refine: a step covers at most this multiple of the predicted time to an approaching "
       "guard, 0 < refine_gamma < 2",
       &O::refine_gamma},
      {"samples", "", G::kTuning, "strategy sampled: interior points of each step's dense output checked, >= 1",
       &O::samples},
      {"sliding", "", G::kTuning,
       "at a sliding arrival, move along the surface with the equivalent (Filippov) dynamics; false: the two "
       "modes chatter at the minimum step",
       &O::sliding},
      {"zeno_events", "", G::kTuning,
       "Zeno: consecutive intervals between pinnacle events that must shrink geometrically, >= 3",
       &O::zeno_events},
      {"zeno_ratio_tolerance", "", G::kTuning, "Zeno: relative spread allowed among the ratios of those intervals, > 0",
       &O::zeno_ratio_tolerance},
      {"zeno_horizon", "s", G::kTuning,
       "Zeno: declared once the predicted time left to the accumulation is at most this, > 0", &O::zeno_horizon},
      {"chain_limit", "", G::kLimit, "most modes one event may visit (and most consecutive events at one time), >= 1",
       &O::chain_limit},
      {"event_limit", "", G::kLimit, "stop after this many events (the run then ends normally, reason \"event limit\"), >= 1",
       &O::event_limit},
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
  static constexpr const char* kKinds[] = {"double", "int", "int64", "bool", "string"};  // as in OptionMember
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
