// Published tables beside ours (`hysim reproduce NAME`, docs/cli.md). Two reproductions:
//
//   pwm-table1   004, Table 1: the signed errors of events 1 and 7 of the PWM servo drive in
//                t, omega and phi, for ISMA, SimInTech, MATLAB and Ptolemy II (computed with
//                accuracy eps = 1e-4), against the exact events; then one row per strategy of
//                ours, on one solver (dopri5, rtol = atol = 1e-4 by default), against the exact
//                reference of models/pwm_servo_exact.hpp.
//   shpakov      000-002: every number the rule-table papers print, beside the papers' tables
//                run on our interpreter and on the engine, and the exact value
//                (hysim/study/shpakov.hpp).
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hysim/study/evaluation.hpp"

namespace hysim::study {

struct ReproduceRequest {
  std::string name;
  std::vector<std::string> strategies;  // empty: every strategy that runs
  std::string solver = "dopri5";
  double rtol = 1e-4;
  double atol = 0;  // 0: the same as rtol (the paper gives one accuracy, eps)
  std::string out_dir;  // the program's: NAME.csv there
};

// 004, Table 1, as printed: t~1-t1*, t~7-t7*, omega~1-omega1*, omega~7-omega7*,
// phi~1-phi1*, phi~7-phi7*.
struct PaperRow {
  const char* platform;
  std::array<const char*, 6> errors;
};
inline constexpr std::array<PaperRow, 4> kPwmTableOne = {{
    {"ISMA", {"1.5e-06", "1.3e-05", "1.5e-04", "8.4e-05", "6.5e-06", "7.1e-05"}},
    {"SimInTech", {"9.5e-06", "7.4e-06", "2.0e-04", "2.7e-05", "4.3e-05", "1.7e-05"}},
    {"MATLAB", {"-2.2e-11", "-1.6e-10", "-2.2e-09", "2.0e-10", "-4.3e-10", "-2.3e-09"}},
    {"Ptolemy II", {"4.0e-05", "2.1e-04", "2.5e-04", "3.5e-04", "1.8e-04", "1.4e-04"}},
}};
inline constexpr const char* kPaperSource = "004, Table 1";
inline constexpr double kPaperAccuracy = 1e-4;  // 004, section 9: "the given accuracy eps = 1e-4"

// Our rows of 004, Table 1: one run per strategy, against the exact events.
struct PwmTableOne {
  SimulationOptions base;
  Reference reference;
  ErrorColumns errors;  // t, omega and phi at events 1 and 7
  std::vector<Evaluation> runs;
  bool every_strategy = true;  // no strategies asked: a strategy that cannot run is left out
};

// Runs to halfway between reference events 7 and 8. Throws InvalidArgument for a bad option.
PwmTableOne pwm_table_one(const ReproduceRequest& request);

// The names of the reproductions, with a line each.
std::vector<std::pair<std::string, std::string>> reproductions();

// Throws InvalidArgument naming the known ones when `name` is not one of reproductions().
void check_reproduction(const std::string& name);

// The reproduction as data: {"name", "source", "description", "columns", "paper": [rows],
// "hysim": [rows], "not_run", "settings"}; each row maps the columns to numbers (null where
// unknown). Throws InvalidArgument for an unknown name or a bad option.
nlohmann::json reproduction_json(const ReproduceRequest& request);

}  // namespace hysim::study
