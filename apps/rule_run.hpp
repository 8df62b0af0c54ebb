// `hysim run TABLE.rules.tsv`: a rule table (docs/rule-tables.md) on the rule interpreter, in
// model time or in real time.
#pragma once

#include <cstdint>
#include <string>

namespace hysim::app {

struct RuleRunRequest {
  std::string file;
  double t_end = 0;               // 0: the table's
  double dt = 0;                  // 0: the table's
  double output_step = 0;         // 0: every cycle
  bool real_time = false;
  bool quiet = false;             // no switch table
  std::string out_dir;
};

int run_rule_table(const RuleRunRequest& request);

}  // namespace hysim::app
