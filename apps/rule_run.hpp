// `hysim run TABLE.rules.tsv`: a rule table (docs/rule-tables.md) on the rule interpreter, in
// model time, in 001's real time (each cycle's measured duration) or paced to the wall clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hysim::app {

struct RuleRunRequest {
  std::string file;
  double t_end = 0;               // 0: the table's
  double dt = 0;                  // 0: the table's
  double output_step = 0;         // 0: every cycle
  bool real_time = false;         // 001's real time: each cycle advances t by its measured duration
  bool paced = false;             // fixed dt, each cycle waiting for the wall clock
  bool quiet = false;             // no switch table
  std::string out_dir;
  // NAME=VALUE: a parameter's value or a variable's initial value, NAME as the table writes it
  // ("Угол=75", "M тележки=10").
  std::vector<std::string> values;
};

int run_rule_table(const RuleRunRequest& request);

}  // namespace hysim::app
