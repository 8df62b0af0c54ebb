#include "apps/recorder.hpp"

#include <algorithm>
#include <cstdio>

#include "hysim/study/stopwatch.hpp"
#include "hysim/core/errors.hpp"
#include "hysim/core/printable.hpp"

namespace hysim::app {

using study::ScopedTimer;

namespace {

// Round-trip digits of S: 17 for double, 21 for long double, 36 for float128.
template <class S>
constexpr int kDigitsOf = std::numeric_limits<S>::max_digits10;

}  // namespace

OutputFiles OutputFiles::parse(const std::vector<std::string>& names) {
  OutputFiles files{false, false, false, false};
  for (const auto& name : names) {
    if (name == "events") files.events = true;
    else if (name == "trajectory") files.trajectory = true;
    else if (name == "steps") files.steps = true;
    else if (name == "stats") files.stats = true;
    else throw InvalidArgument("--files: unknown file '" + name + "' (known: events, trajectory, steps, stats)");
  }
  return files;
}

template <class S>
Recorder<S>::Recorder(const std::filesystem::path& out_dir, OutputFiles files, TableMode mode, std::ostream* table)
    : out_dir_(out_dir), files_(files), mode_(table == nullptr ? TableMode::kNone : mode), table_(table) {
  if (!out_dir.empty()) csv_.emplace(out_dir, CsvFiles{files.events, files.trajectory, files.steps});
}

template <class S>
std::vector<std::filesystem::path> Recorder<S>::written() const {
  std::vector<std::filesystem::path> out;
  if (!csv_) return out;
  out = csv_->files();
  if (files_.stats) out.push_back(out_dir_ / "stats.json");
  return out;
}

template <class S>
void Recorder<S>::print_row(const std::vector<std::string>& cells) {
  std::string text;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const std::string cell = printable(cells[c]);  // mode, guard and state names come from files
    text += cell;
    if (c + 1 < cells.size()) text.append(widths_[c] + 2 - std::min(widths_[c], cell.size()), ' ');
  }
  *table_ << text << '\n';
}

template <class S>
void Recorder<S>::show_progress(std::ostream* progress, double t0, double t_end) {
  progress_ = progress;
  t0_ = t0;
  t_end_ = t_end;
  started_ = std::chrono::steady_clock::now();
}

template <class S>
void Recorder<S>::progress(S t) {
  // Reading the clock at every step cost 5 % of a PWM servo run: every 256th call is enough.
  if (++progress_calls_ % kProgressStride != 0) return;
  const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  if (now < 1.0 || now - printed_at_ < 0.5) return;
  printed_at_ = now;
  progress_shown_ = true;
  const double fraction = (to_double(t) - t0_) / (t_end_ - t0_);
  char line[160];
  std::snprintf(line, sizeof line, "\r  t = %.6g (%.1f%% of t_end), %lld events, %.3g events/s, %.0f s\033[K",
                to_double(t), 100.0 * fraction, static_cast<long long>(events_seen_),
                static_cast<double>(events_seen_) / now, now);
  *progress_ << line << std::flush;
}

template <class S>
void Recorder<S>::finish_table() {
  if (progress_shown_) {
    *progress_ << "\r\033[K" << std::flush;  // the progress line gives way to the summary
    progress_shown_ = false;
  }
  if (mode_ != TableMode::kAbbreviated || rows_ <= kHeadRows) return;
  const std::int64_t left_out = rows_ - kHeadRows - static_cast<std::int64_t>(tail_.size());
  if (left_out > 0) {
    *table_ << "... " << left_out << " rows not shown" << (files_.events && !out_dir_.empty() ? " (all in events.csv)" : "")
            << "; --table all prints every row\n";
  }
  for (const auto& cells : tail_) print_row(cells);
  tail_.clear();
}

template <class S>
void Recorder<S>::on_start(const Model<S>& model, const SimulationOptions& options) {
  ScopedTimer timer(&seconds_);
  model_ = &model;
  if (csv_) csv_->on_start(model, options);
  if (mode_ == TableMode::kNone) return;
  // Columns as wide as the widest value they can hold, so that rows print as they come.
  const std::size_t number = static_cast<std::size_t>(kDigitsOf<S>) + 8;  // -d.ddd...e-308
  std::size_t mode_width = 4, guard_width = 5;
  for (const auto& m : model.modes) {
    mode_width = std::max(mode_width, printable(m.name).size());
    for (const auto& tr : m.transitions) guard_width = std::max(guard_width, printable(tr.name).size());
  }
  widths_ = {7, number, mode_width, mode_width, 9, guard_width};
  std::vector<std::string> header = {"event", "t", "from", "to", "class", "guard"};
  for (const auto& name : model.state_names) {
    widths_.push_back(std::max(number, printable(name).size()));
    header.push_back(name);
  }
  print_row(header);
}


template <class S>
void Recorder<S>::on_sample(S t, int mode, std::span<const S> x) {
  // Only the files' writing is worth its two clock readings (at every step, they cost 8 % of a
  // run that writes nothing).
  ScopedTimer timer(csv_ ? &seconds_ : nullptr);
  if (csv_) csv_->on_sample(t, mode, x);
}

template <class S>
void Recorder<S>::on_event(const EventRecord<S>& record) {
  ScopedTimer timer(csv_ || mode_ != TableMode::kNone ? &seconds_ : nullptr);
  if (csv_) csv_->on_event(record);
  counts_.count(record.guard);
  ++rows_;
  if (record.index != last_index_) ++events_seen_;
  last_index_ = record.index;
  const bool printed = mode_ == TableMode::kAll || (mode_ == TableMode::kAbbreviated && rows_ <= kHeadRows);
  const bool kept = !printed && mode_ == TableMode::kAbbreviated;  // for the tail
  if (!printed && !kept) return;
  std::vector<std::string> cells = {std::to_string(record.index), format_scalar(record.t, kDigitsOf<S>),
                                    model_->modes[static_cast<std::size_t>(record.from)].name,
                                    model_->modes[static_cast<std::size_t>(record.to)].name,
                                    transition_class_name(record.kind), std::string(record.guard)};
  for (const S& v : record.x_pre) cells.push_back(format_scalar(v, kDigitsOf<S>));
  if (printed) {
    print_row(cells);
  } else {
    tail_.push_back(std::move(cells));
    if (tail_.size() > kTailRows) tail_.pop_front();
  }
}

template <class S>
void Recorder<S>::on_step(S t, S h, StepLimit limit) {
  ScopedTimer timer(csv_ ? &seconds_ : nullptr);
  if (progress_ != nullptr && (++steps_seen_ & 255) == 0) progress(t + h);
  if (csv_) csv_->on_step(t, h, limit);
}

template <class S>
void Recorder<S>::on_finish(const RunResult<S>&) {
  ScopedTimer timer(&seconds_);
  flush();
}

template <class S>
void Recorder<S>::flush() {
  if (csv_) csv_->flush();
}

template class Recorder<double>;
template class Recorder<long double>;
template class Recorder<float128>;

}  // namespace hysim::app
