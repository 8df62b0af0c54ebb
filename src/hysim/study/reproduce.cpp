#include "hysim/study/reproduce.hpp"

#include <optional>

#include "hysim/core/errors.hpp"
#include "hysim/study/comparison.hpp"
#include "hysim/study/shpakov.hpp"

namespace hysim::study {

PwmTableOne pwm_table_one(const ReproduceRequest& request) {
  ModelChoice choice;
  choice.model = "pwm-servo";
  const ParameterValues values = choice.values();
  const ModelEntry& entry = choice.entry();

  // The run ends halfway between reference events 7 and 8: event 7 is the last one asked for,
  // and its window (hysim/study/matching.hpp) closes before t_end.
  constexpr std::size_t kLastEvent = 7;
  constexpr double kProbeEnd = 1.0;  // [s] the PWM servo has about 20 events per second
  const Reference probe = entry.reference(values, kProbeEnd);
  if (probe.events.size() <= kLastEvent) throw Error("the PWM servo reference has fewer than 8 events in 1 s");
  SimulationOptions base;
  base.t_end = static_cast<double>((probe.events[kLastEvent - 1].t + probe.events[kLastEvent].t) / 2);
  base.solver = request.solver;
  base.rtol = request.rtol;
  base.atol = request.atol > 0 ? request.atol : request.rtol;
  check_common_options(choice, values, base);
  const std::vector<std::string> strategies = checked_strategies(request.strategies, base);

  std::string why_not;
  const std::optional<Reference> reference = reference_for(choice, values, base.t_end, &why_not);
  if (!reference) throw Error("the PWM servo reference is not available: " + why_not);
  std::vector<SimulationOptions> runs;
  for (const auto& strategy : strategies) {
    runs.push_back(base);
    runs.back().strategy = strategy;
  }
  PwmTableOne table;
  table.base = base;
  table.reference = *reference;
  table.every_strategy = request.strategies.empty();
  table.runs = evaluate(choice, values, runs, &*reference);
  table.errors = error_columns(entry.make<double>(values).state_names, kTableOneEvents, {"omega", "phi"});
  return table;
}

namespace {

// The paper's rows as numbers, our rows with their runs' statistics.
nlohmann::json pwm_table1_json(const ReproduceRequest& request) {
  const PwmTableOne table = pwm_table_one(request);
  const std::vector<std::string> columns = table.errors.headers();
  nlohmann::json paper = nlohmann::json::array();
  for (const auto& row : kPwmTableOne) {
    nlohmann::json cells = {{"platform", row.platform}};
    for (std::size_t c = 0; c < columns.size(); ++c) cells[columns[c]] = std::stod(row.errors[c]);
    paper.push_back(cells);
  }
  nlohmann::json ours = nlohmann::json::array();
  nlohmann::json not_run = nlohmann::json::array();
  for (const auto& run : table.runs) {
    if (run.outcome == Outcome::kSkipped && table.every_strategy) {
      not_run.push_back({{"strategy", run.options.strategy}, {"note", run.note}});
      continue;
    }
    ours.push_back(run_json(run, table.errors, &table.reference));
  }
  return {{"source", kPaperSource},
          {"columns", columns},
          {"paper_accuracy", kPaperAccuracy},
          {"paper", paper},
          {"hysim", ours},
          {"not_run", not_run},
          {"settings",
           {{"solver", table.base.solver},
            {"rtol", table.base.rtol},
            {"atol", table.base.atol},
            {"scalar", "double"},
            {"t_end", table.base.t_end},
            {"reference", table.reference.method}}}};
}

// 000-002 (Shpakov's rule tables): published / interpreter / engine / exact.
nlohmann::json shpakov_json(const ReproduceRequest&) {
  nlohmann::json rows = nlohmann::json::array();
  const auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  for (const auto& row : shpakov_rows()) {
    rows.push_back({{"source", row.source}, {"quantity", row.quantity}, {"published", row.published},
                    {"interpreter", value(row.interpreter)}, {"engine", value(row.engine)}, {"exact", value(row.exact)},
                    {"published_deviation", value(row.published_deviation())},
                    {"note", row.note}});
  }
  return {{"source", "000, 001, 002"},
          {"columns", {"published", "interpreter", "engine", "exact"}},
          {"rows", rows},
          {"settings", {{"engine", "dopri5, rtol = atol = 1e-12"}, {"interpreter", "the table's dt"}}}};
}

struct Reproduction {
  const char* name;
  const char* description;
  nlohmann::json (*data)(const ReproduceRequest&);
};
constexpr std::array<Reproduction, 2> kReproductions = {{
    {"pwm-table1", "004, Table 1: errors at events 1 and 7 of the PWM servo drive", pwm_table1_json},
    {"shpakov", "000-002: every published number of the rule-table papers, interpreter / engine / exact",
     shpakov_json},
}};

const Reproduction& find_reproduction(const std::string& name) {
  std::string known;
  for (const auto& reproduction : kReproductions) {
    if (name == reproduction.name) return reproduction;
    known += (known.empty() ? "" : ", ") + std::string(reproduction.name);
  }
  throw InvalidArgument("unknown reproduction '" + name + "' (known: " + known + ")");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> reproductions() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& reproduction : kReproductions) out.emplace_back(reproduction.name, reproduction.description);
  return out;
}

void check_reproduction(const std::string& name) { (void)find_reproduction(name); }

nlohmann::json reproduction_json(const ReproduceRequest& request) {
  const Reproduction& reproduction = find_reproduction(request.name);
  nlohmann::json out = reproduction.data(request);
  out["name"] = reproduction.name;
  out["description"] = reproduction.description;
  return out;
}

}  // namespace hysim::study
