// `hysim sweep MODEL`: many runs of one model over a grid or a sample of its parameters
// (hysim/study/sweep.hpp, docs/sweeps.md), with one summary row per run.
//
//   --param kp=0.05:0.2:64      a linear grid: 64 values from 0.05 to 0.2, ends included
//   --param u=0.5,1,2           a list
//   --param e=0.7               one value for every run
//   --draws N --seed S          N runs, drawing --param x=uniform:a:b, x=normal:mu:sigma,
//                               x=loguniform:a:b and x=declared (the model's declared range)
//   --declared-ranges           with --draws: every parameter with a declared range is drawn
//   --draw-rtol A:B             with --draws: each run's rtol log-uniform in [A, B), atol in
//                               proportion (atol/rtol as --atol/--rtol give it)
//
// The summary (CSV, streamed: a million runs take constant memory) has per run: its index, the
// swept values, how it ended, its events, the first --events event times, the final state, the
// work counters and the wall time. Every column but the wall time is the same whatever --jobs.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/table.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/study/out_folder.hpp"
#include "hysim/study/sweep.hpp"

namespace hysim::app {

namespace {

std::string write_failed(const std::filesystem::path& file, int error) {
  return "write failed: " + (file.empty() ? std::string("standard output") : file.string()) + ": " +
         (error != 0 ? std::strerror(error) : "write error");
}

std::string count_text(const std::optional<std::int64_t>& count) { return count ? std::to_string(*count) : ""; }

// A row as the cells of summary.csv, in the order of SweepColumns::names().
std::vector<std::string> csv_cells(const SweepRow& row) {
  std::vector<std::string> cells = {std::to_string(row.run)};
  for (const SweepReal& value : row.swept) cells.push_back(value.text);
  cells.insert(cells.end(), {row.reason, row.message, row.t.text, row.mode, count_text(row.events)});
  for (const SweepReal& t : row.event_times) cells.push_back(t.text);
  for (const SweepReal& x : row.state) cells.push_back(x.text);
  for (const auto& count : {row.steps, row.rejected, row.field_evals, row.guard_evals}) cells.push_back(count_text(count));
  cells.push_back(row.wall_s.text);
  return cells;
}

// JSON values of a row: a number as written, null when unknown or not finite.
std::string json_number(const std::string& text) {
  if (text.empty() || text == "nan" || text == "inf" || text == "-inf") return "null";
  return text;
}

std::string json_text(const std::string& text) { return nlohmann::json(text).dump(); }

// A row as one object of summary.json, keyed by the column names.
std::string json_object(const SweepRow& row, const std::vector<std::string>& names) {
  std::vector<std::string> values = {std::to_string(row.run)};
  for (const SweepReal& value : row.swept) values.push_back(json_number(value.text));
  values.insert(values.end(), {json_text(row.reason), row.message.empty() ? "null" : json_text(row.message),
                               json_number(row.t.text), json_text(row.mode), json_number(count_text(row.events))});
  for (const SweepReal& t : row.event_times) values.push_back(json_number(t.text));
  for (const SweepReal& x : row.state) values.push_back(json_number(x.text));
  for (const auto& count : {row.steps, row.rejected, row.field_evals, row.guard_evals}) {
    values.push_back(json_number(count_text(count)));
  }
  values.push_back(json_number(row.wall_s.text));
  std::string object = "{";
  for (std::size_t c = 0; c < values.size(); ++c) object += (c == 0 ? "" : ", ") + json_text(names[c]) + ": " + values[c];
  return object + "}";
}

// The summary as CSV (to DIR/summary.csv, or stdout) and, with --out, as JSON (DIR/summary.json:
// an array of one object per run), both streamed. Every write is checked: a full disk stops the
// sweep there (exit 1), not at its end. summary.json is written beside its place and renamed
// there when closed, also after an error: it is valid JSON, or absent (a killed sweep), never
// cut short.
class SummaryFiles {
 public:
  explicit SummaryFiles(const std::string& out_dir) : out_dir_(out_dir) {}

  // Every input is checked by now: opens the files and writes the header.
  void open(const SweepColumns& columns) {
    names_ = columns.names();
    if (!out_dir_.empty()) {
      const std::filesystem::path dir = out_dir_;
      // An earlier summary.json goes now: the new one appears when complete.
      prepare_out_folder(dir, {"summary.csv", "summary.json"}, {"summary.csv"});
      path_ = dir / "summary.csv";
      json_path_ = dir / "summary.json";
      json_partial_ = dir / "summary.json.partial";
      file_ = std::make_unique<std::ofstream>(path_);
      json_ = std::make_unique<std::ofstream>(json_partial_);
      if (!*file_ || !*json_) throw InvalidArgument("--out: cannot write " + path_.string() + " and " + json_path_.string());
      out_ = file_.get();
      *json_ << "[";
    }
    put_line(csv_line(names_));
  }

  // On the thread that ran the row (run_sweep's prepare): its CSV line and, with --out, its
  // JSON object, so that write() only streams text. Reads names_, set before any run.
  void prepare(SweepRow& row) const {
    row.prepared.push_back(csv_line(csv_cells(row)));
    if (json_) row.prepared.push_back(json_object(row, names_));
  }

  void write(SweepRow& row) {
    if (row.prepared.empty()) prepare(row);
    put_line(row.prepared[0]);
    if (!json_) return;
    errno = 0;
    *json_ << (written_ > 2 ? ",\n" : "\n") << row.prepared[1];
    check(*json_, json_path_);
  }

  void close() {
    errno = 0;
    out_->flush();
    check(*out_, path_);
    close_json();
  }

  // After an error: the rows so far, as valid JSON; the first error is the one to report.
  void close_after_error() {
    try {
      close_json();
    } catch (const Error&) {
    }
  }

  // "; wrote DIR/summary.csv and DIR/summary.json", or "" on stdout.
  std::string wrote() const {
    return path_.empty() ? "" : "; wrote " + path_.string() + " and " + json_path_.string();
  }

 private:
  static void check(std::ostream& stream, const std::filesystem::path& name) {
    if (!stream) throw Error(write_failed(name, errno));
  }

  static std::string csv_line(const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) text += ',';
      text += csv_cell(cells[c]);
    }
    return text;
  }

  void put_line(const std::string& text) {
    errno = 0;
    *out_ << text << '\n';
    if (++written_ % 1000 == 0) out_->flush();
    check(*out_, path_);
  }

  void close_json() {
    if (!json_ || json_closed_) return;
    json_closed_ = true;
    errno = 0;
    *json_ << "\n]\n" << std::flush;
    check(*json_, json_path_);
    json_->close();
    std::error_code error;
    std::filesystem::rename(json_partial_, json_path_, error);
    if (error) throw Error("write failed: " + json_path_.string() + ": " + error.message());
  }

  std::string out_dir_;
  std::vector<std::string> names_;
  std::unique_ptr<std::ofstream> file_, json_;
  std::ostream* out_ = &std::cout;
  std::filesystem::path path_, json_path_, json_partial_;
  std::int64_t written_ = 0;  // lines of summary.csv, its header included
  bool json_closed_ = false;
};

// A progress line on a terminal (stderr), rewritten at most twice a second from the ordered
// rows: runs done of the sweep, runs per second, failures so far, the time left at that pace.
// The clock is read every 64th row only.
class SweepProgress {
 public:
  SweepProgress() : shown_(isatty(STDERR_FILENO) != 0), started_(std::chrono::steady_clock::now()) {}

  void start(std::int64_t runs) { runs_ = runs; }

  void row(const SweepRow& row) {
    ++done_;
    failed_ += row.reason == "failed" ? 1 : 0;
    if (!shown_ || done_ % 64 != 0) return;
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (now < 1.0 || now - printed_at_ < 0.5) return;
    printed_at_ = now;
    const double rate = static_cast<double>(done_) / now;
    char line[200];
    std::snprintf(line, sizeof line, "\r  sweep: %lld of %lld runs (%.1f%%), %.4g runs/s, %lld failed, %.0f s left\033[K",
                  static_cast<long long>(done_), static_cast<long long>(runs_),
                  100.0 * static_cast<double>(done_) / static_cast<double>(std::max<std::int64_t>(runs_, 1)), rate,
                  static_cast<long long>(failed_), static_cast<double>(runs_ - done_) / std::max(rate, 1e-9));
    std::cerr << line << std::flush;
    printing_ = true;
  }

  // The line gives way to the closing summary.
  void clear() {
    if (printing_) std::cerr << "\r\033[K" << std::flush;
    printing_ = false;
  }

 private:
  bool shown_, printing_ = false;
  std::chrono::steady_clock::time_point started_;
  std::int64_t runs_ = 0, done_ = 0, failed_ = 0;
  double printed_at_ = 0;
};

// --draw-rtol A:B into the request's rtol_low and rtol_high (SweepRequest::validate checks them).
void read_rtol_range(const std::string& text, SweepRequest* request) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) throw InvalidArgument("--draw-rtol " + text + ": expected A:B, as in 1e-12:1e-4");
  request->rtol_low = parse_decimal<double>(text.substr(0, colon), "--draw-rtol (its low end)");
  request->rtol_high = parse_decimal<double>(text.substr(colon + 1), "--draw-rtol (its high end)");
}

int sweep_command(const SweepRequest& request) {
  SummaryFiles files(request.out_dir);
  SweepProgress progress;
  SweepSummary summary;
  try {
    summary = run_sweep(
        request,
        [&](const SweepColumns& columns) {
          files.open(columns);
          progress.start(columns.runs);
        },
        [&](SweepRow&& row) {
          files.write(row);
          progress.row(row);
        },
        [&](SweepRow& row) { files.prepare(row); });
    progress.clear();
    files.close();
  } catch (...) {
    progress.clear();
    files.close_after_error();
    throw;
  }
  const std::int64_t done = summary.runs - summary.not_run;
  std::cerr << "sweep: " << done << " runs of " << request.choice.entry().name << " in "
            << format_scalar(summary.seconds, 4) << " s ("
            << format_scalar(static_cast<double>(done) / std::max(summary.seconds, 1e-9), 4) << " runs/s) on "
            << summary.threads << " threads; " << summary.failed << " failed";
  if (summary.refused > 0) std::cerr << "; " << summary.refused << " refused";
  if (summary.not_run > 0) std::cerr << "; " << summary.not_run << " not run";
  std::cerr << files.wrote() << "\n";
  return 0;
}

}  // namespace

Command add_sweep_command(CLI::App& app, int* verbosity) {
  auto request = std::make_shared<SweepRequest>();
  CLI::App* cmd = app.add_subcommand("sweep", "many runs over a grid or a sample of parameters, on every core");
  add_model_options(cmd, &request->choice);
  add_start_options(cmd, &request->choice.start);
  add_simulation_options(cmd, &request->options);
  cmd->add_option("--draws", request->samples, "N runs drawn at random (with --param NAME=uniform:A:B or normal:MEAN:DEVIATION); --samples is the sampled strategy's")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", request->seed, "the seed of the draws (run i draws from its own stream)")->default_val(1);
  cmd->add_option("--jobs", request->jobs, "threads (0: every core); the summary does not depend on it")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--events", request->event_columns, "the first N event times in each row")
      ->default_val(3)
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--out", request->out_dir, "write DIR/summary.csv (default: the summary on stdout)");
  cmd->add_flag("--run-files", request->run_files, "also write each run's events.csv and trajectory.csv to DIR/runs/<run>/");
  cmd->add_option("--first", request->first, "a part of the sweep: its first run (a chunk for a cluster's worker)")
      ->default_val(0);
  cmd->add_option("--runs", request->runs, "a part of the sweep: how many runs from --first (0: to the end)")
      ->default_val(0);
  cmd->add_flag("--declared-ranges", request->declared_ranges,
                "with --draws: draw every parameter with a declared range (hysim list MODEL) uniformly over it");
  auto rtol_range = std::make_shared<std::string>();
  cmd->add_option("--draw-rtol", *rtol_range,
                  "with --draws: each run's rtol log-uniform in [A, B) (A:B), its atol rtol * (--atol / --rtol)");
  add_verbosity_flag(cmd, verbosity);
  return {cmd, [request, rtol_range] {
            if (!rtol_range->empty()) read_rtol_range(*rtol_range, request.get());
            return sweep_command(*request);
          }};
}

}  // namespace hysim::app
