#include "hysim/events/strategy.hpp"

#include <algorithm>

#include "hysim/core/errors.hpp"
#include "hysim/run/option_table.hpp"
#include "hysim/events/strategies/bisection.hpp"
#include "hysim/events/strategies/certified.hpp"
#include "hysim/events/strategies/double_sided.hpp"
#include "hysim/events/strategies/gamma.hpp"
#include "hysim/events/strategies/gamma_refine.hpp"
#include "hysim/events/strategies/illinois.hpp"
#include "hysim/events/strategies/itp.hpp"
#include "hysim/events/strategies/sampled.hpp"
#include "hysim/events/strategies/step.hpp"

namespace hysim {

namespace {

std::deque<StrategyInfo> built_in() {
  std::deque<StrategyInfo> catalog;
  catalog.push_back(strategy_entry<StepStrategy>(
      "step", "no location: switch at the end of the step in which a guard fired", "fixed-step rule interpreters"));
  catalog.push_back(strategy_entry<BisectionStrategy>(
      "bisection", "one-sided bisection on the dense output down to one ulp of t", "003, Algorithm 1"));
  catalog.push_back(strategy_entry<IllinoisStrategy>(
      "illinois", "one-sided regula falsi with the Illinois modification",
      "Dowell & Jarratt 1971; as in CVODE's rootfinder (Hindmarsh et al. 2005)"));
  catalog.push_back(strategy_entry<ItpStrategy>("itp", "one-sided ITP (interpolate, truncate, project) bracketing",
                                                "Oliveira & Takahashi, ACM TOMS 47(1), 2021"));
  catalog.push_back(strategy_entry<GammaStrategy>(
      "gamma", "gamma-limited steps toward the surface down to h_min, then switch", "004, Algorithms 1-3 (ISMA)",
      GammaStrategy<double>::options(), &GammaStrategy<double>::validate));
  catalog.push_back(strategy_entry<GammaRefineStrategy>(
      "gamma-refine", "gamma-limited steps, then one-sided refinement on the dense output",
      "004, Algorithms 1-3, with 003's one-sided location", GammaRefineStrategy<double>::options(),
      &GammaRefineStrategy<double>::validate));
  catalog.push_back(strategy_entry<DoubleSidedStrategy>(
      "double-sided", "locate, then continue from the post-event side", "Ptolemy II (004, section 9)"));
  catalog.push_back(strategy_entry<SampledStrategy>(
      "sampled", "check interior points of each step's dense output, then Illinois",
      "sampled zero-crossing detection (cf. DifferentialEquations.jl interp_points)",
      SampledStrategy<double>::options(), &SampledStrategy<double>::validate));
  catalog.push_back(strategy_entry<CertifiedStrategy>(
      "certified", "gamma-refine with each step proved by interval arithmetic to hold no other guard change",
      "interval enclosures of the guards along the dense output (docs/certified.md)",
      CertifiedStrategy<double>::options(), &CertifiedStrategy<double>::validate));
  catalog.back().opt_in = true;  // model files (interval guards), double
  return catalog;
}

std::deque<StrategyInfo>& catalog() {
  static std::deque<StrategyInfo> strategies = built_in();
  return strategies;
}

}  // namespace

const std::deque<StrategyInfo>& strategy_catalog() { return catalog(); }

void register_strategy(StrategyInfo info) {
  if (info.name.empty()) throw InvalidArgument("register_strategy: the strategy has no name");
  for (const auto& known : catalog()) {
    if (known.name == info.name) throw InvalidArgument("register_strategy: strategy '" + info.name + "' exists");
  }
  const bool policy = info.make_double && info.make_long_double && info.make_float128;
  if (policy == info.is_driver()) {
    throw InvalidArgument("register_strategy: strategy '" + info.name +
                          "' needs either a factory for each scalar type or an engine of its own");
  }
  for (std::size_t i = 0; i < info.options.size(); ++i) {
    const std::string& option = info.options[i].name;
    for (std::size_t j = 0; j < i; ++j) {
      if (info.options[j].name == option) {
        throw InvalidArgument("register_strategy: strategy '" + info.name + "' lists option '" + option + "' twice");
      }
    }
  }
  catalog().push_back(std::move(info));
}

const StrategyInfo& find_strategy(std::string_view name) {
  std::string known;
  for (const auto& info : catalog()) {
    if (info.name == name) return info;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  throw InvalidArgument("unknown strategy '" + std::string(name) + "' (known: " + known + ")");
}

Decimal StrategyTuning::number(std::string_view name) const {
  for (const StrategyOption& row : rows_) {
    if (row.name != name) continue;
    if (const auto set = settings_.find(name); set != settings_.end()) return set->second;
    for (const OptionInfo& info : option_table()) {  // a field of SimulationOptions
      if (info.name != name) continue;
      if (const auto* member = std::get_if<Decimal SimulationOptions::*>(&info.member)) return options_.**member;
      if (const auto* member = std::get_if<int SimulationOptions::*>(&info.member)) {
        return Decimal(static_cast<double>(options_.**member));
      }
      if (const auto* member = std::get_if<bool SimulationOptions::*>(&info.member)) {
        return Decimal(options_.**member ? 1.0 : 0.0);  // a switch reads 1 or 0
      }
    }
    return row.default_value;
  }
  throw InvalidArgument("strategy " + options_.strategy + " has no option " + std::string(name));
}

void require_option(bool ok, std::string_view name, const Decimal& value, std::string_view constraint) {
  if (!ok) {
    throw InvalidArgument("option " + std::string(name) + " = " + value.str() + " violates " + std::string(constraint));
  }
}

void StrategyInfo::check(const SimulationOptions& run_options, const StrategySettings& settings) const {
  for (const auto& setting : settings) {
    const std::string& option = setting.first;  // a plain name: lambdas below capture it
    const auto& table = option_table();
    if (std::any_of(table.begin(), table.end(), [&](const OptionInfo& info) { return info.name == option; })) {
      throw InvalidArgument("option " + option + " of strategy " + name +
                            " is a field of SimulationOptions (--" + option + "): set it there");
    }
    const bool known = std::any_of(options.begin(), options.end(), [&](const StrategyOption& row) { return row.name == option; });
    if (known) continue;
    std::string names;
    for (const StrategyOption& row : options) names += (names.empty() ? "" : ", ") + row.name;
    throw InvalidArgument("strategy " + name + " has no option " + option + " (its options: " +
                          (names.empty() ? "none" : names) + ")");
  }
  if (validate) validate(StrategyTuning(run_options, settings, options));
}

StrategyOption option_row(std::string_view name) {
  const SimulationOptions defaults;
  for (const OptionInfo& info : option_table()) {
    if (info.name != name) continue;
    const std::string text = option_text(defaults, info);  // a switch reads 1 or 0
    return {info.name, info.unit, info.help, Decimal(text == "true" ? "1" : text == "false" ? "0" : text)};
  }
  throw InvalidArgument("option_row: no option " + std::string(name));
}

}  // namespace hysim
