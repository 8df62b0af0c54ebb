#include "hysim/output/run_report.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "hysim/core/errors.hpp"
#include "hysim/run/option_table.hpp"

namespace hysim {

nlohmann::json options_json(const SimulationOptions& options) {
  nlohmann::json json = nlohmann::json::object();
  visit_options(options, [&](const OptionInfo& info, const auto& value) { json[info.name] = value; });
  if (!options.atol_states.empty()) {
    nlohmann::json per_state = nlohmann::json::object();
    for (const auto& [name, value] : options.atol_states) per_state[name] = value.str();
    json["atol_states"] = std::move(per_state);
  }
  if (!options.output_times.empty()) {
    nlohmann::json times = nlohmann::json::array();
    for (const Decimal& t : options.output_times) times.push_back(t.str());
    json["output_times"] = std::move(times);
  }
  return json;
}

nlohmann::json statistics_json(const RunStatistics& s, double wall_seconds) {
  nlohmann::json json = {{"steps_accepted", s.steps_accepted}, {"steps_rejected", s.steps_rejected},
                         {"rhs_evals", s.rhs_evals},           {"guard_evals", s.guard_evals},
                         {"root_iterations", s.root_iterations}, {"events", s.events},
                         {"transitions", s.transitions},       {"one_sided_events", s.one_sided_events},
                         {"wall_seconds", wall_seconds}};
  const CertifiedStatistics& c = s.certified;
  if (c.level > 0) {  // the certified strategy (docs/certified.md)
    json["certified"] = {{"level", c.level},
                         {"proves", c.level == 2 ? "the exact flow from each step's start, within flow_error_max "
                                                   "of the dense output"
                                                 : "the dense output (the computed trajectory), not the exact flow"},
                         {"steps_proved", c.steps_proved},
                         {"steps_unproved", c.steps_unproved},
                         {"steps_at_resolution", c.steps_at_resolution},
                         {"enclosures", c.enclosures},
                         {"subdivisions", c.subdivisions},
                         {"max_depth", c.max_depth},
                         {"events_unique", c.events_unique},
                         {"events_bracketed", c.events_bracketed},
                         {"rearm_points", c.rearm_points}};
    if (c.level == 2) {
      json["certified"]["flow_error_max"] = c.flow_error_max;
      json["certified"]["flow_early_max"] = c.flow_early_max;
      json["certified"]["flow_open_at_end"] = c.flow_open_at_end;
    }
  }
  return json;
}

template <class S>
nlohmann::json run_report_json(const std::string& model, nlohmann::json options, const RunResult<S>& result,
                               double wall_seconds) {
  nlohmann::json report = {{"model", model}, {"options", std::move(options)}};
  if (result.failed()) {
    report["error"] = result.message;
  } else {
    report["result"] = {{"reason", run_reason_name(result.reason)}, {"message", result.message}, {"t", to_double(result.t)}};
    if (result.zeno_detected) report["result"]["zeno_t"] = to_double(result.t_zeno);
  }
  if (!result.warnings.empty()) report["warnings"] = result.warnings;
  report["stats"] = statistics_json(result.stats, wall_seconds);
  return report;
}

void write_json(const std::filesystem::path& file, const nlohmann::json& json) {
  std::filesystem::path partial = file;
  partial += ".partial";
  {
    errno = 0;
    std::ofstream out(partial);
    if (!out) {
      const int error = errno;
      // A full disk is the machine's state, not a bad argument (exit 1, not 2).
      if (error == ENOSPC || error == EDQUOT || error == EIO) throw Error("write failed: " + file.string() + ": " + std::strerror(error));
      throw InvalidArgument("cannot write " + file.string() + (error ? ": " + std::string(std::strerror(error)) : ""));
    }
    out << json.dump(2) << '\n';
    out.flush();
    const int error = errno;
    out.close();
    if (!out) {  // a full disk: not the caller's argument, an error of the run (exit 1)
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
      throw Error("write failed: " + file.string() + ": " + (error ? std::strerror(error) : "write error"));
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, file, error);
  if (error) throw Error("write failed: " + file.string() + ": " + error.message());
}

template nlohmann::json run_report_json(const std::string&, nlohmann::json, const RunResult<double>&, double);
template nlohmann::json run_report_json(const std::string&, nlohmann::json, const RunResult<long double>&, double);
template nlohmann::json run_report_json(const std::string&, nlohmann::json, const RunResult<float128>&, double);

}  // namespace hysim
