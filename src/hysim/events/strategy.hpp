// Event-detection strategies: how a run finds the time of an event and which side of the
// switching surface it continues from (DESIGN.md section 4; 004, sections 8-9).
//
// Every strategy runs on the same integrator, the same guards and the same transition
// chain, and reports the same statistics, so that they can be compared on equal terms
// (`hysim compare`). docs/strategies.md describes each one, its source and its guarantees.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hysim {

enum class Strategy {
  kStep,         // no location: switch at the end of the step in which a guard fired
  kBisection,    // 003 Algorithm 1: halve the bracket on the dense output, one-sided
  kIllinois,     // regula falsi with the Illinois modification (CVODE's rootfinder), one-sided
  kItp,          // ITP (Oliveira & Takahashi 2021): bisection's worst case, superlinear on smooth roots
  kGamma,        // 004 Algorithms 1-3 (ISMA): approach the surface with gamma-limited steps down
                 //   to h_min, then switch at the last point before it
  kGammaRefine,  // the gamma rule, then one-sided root refinement on the dense output
  kDoubleSided,  // locate, then continue from the post-event side (Ptolemy II)
  kSampled,      // also check interior points of each step's dense output, then locate
  kCvode,        // SUNDIALS CVODE with its own rootfinding, restarted after every event (a peer)
};

struct StrategyInfo {
  Strategy strategy;
  std::string name;         // as given to --strategy
  std::string description;  // one line
  std::string source;       // where the method comes from
};

// Every strategy, in the order tables list them.
const std::vector<StrategyInfo>& strategy_catalog();

// The strategy with this name; throws InvalidArgument listing the known names otherwise.
Strategy parse_strategy(std::string_view name);
const char* strategy_name(Strategy strategy);

}  // namespace hysim
