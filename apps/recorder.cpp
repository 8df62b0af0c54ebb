#include "apps/recorder.hpp"

#include "apps/stopwatch.hpp"
#include "hysim/core/errors.hpp"

namespace hysim::app {

namespace {

// Round-trip digits of S: 17 for double, 21 for long double, 36 for float128.
template <class S>
constexpr int kDigitsOf = std::numeric_limits<S>::max_digits10;

std::ofstream open_csv(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw InvalidArgument("cannot write " + path.string());
  return out;
}

}  // namespace

template <class S>
Recorder<S>::Recorder(const std::filesystem::path& out_dir) {
  if (out_dir.empty()) return;
  trajectory_ = open_csv(out_dir / "trajectory.csv");
  events_ = open_csv(out_dir / "events.csv");
  steps_ = open_csv(out_dir / "steps.csv");
}

template <class S>
void Recorder<S>::on_start(const Model<S>& model, const SimulationOptions&) {
  ScopedTimer timer(&seconds_);
  model_ = &model;
  if (trajectory_.is_open()) {
    trajectory_ << "t,mode";
    for (const auto& name : model.state_names) trajectory_ << ',' << name;
    trajectory_ << '\n';
  }
  if (events_.is_open()) {
    events_ << "index,t,from,to,class,guard,one_sided";
    for (const auto& name : model.state_names) events_ << ',' << name;
    for (const auto& name : model.state_names) events_ << ',' << name << '+';
    events_ << '\n';
    events_.flush();
  }
  if (steps_.is_open()) steps_ << "t,h,limit\n";
}

template <class S>
void Recorder<S>::on_sample(S t, int mode, std::span<const S> x) {
  ScopedTimer timer(&seconds_);
  last_t_ = t;
  if (!trajectory_.is_open()) return;
  trajectory_ << format_scalar(t, kDigitsOf<S>) << ',' << model_->modes[static_cast<std::size_t>(mode)].name;
  for (const S& v : x) trajectory_ << ',' << format_scalar(v, kDigitsOf<S>);
  trajectory_ << '\n';
}

template <class S>
void Recorder<S>::on_event(const EventRecord<S>& record) {
  ScopedTimer timer(&seconds_);
  EventRow row;
  row.index = std::to_string(record.index);
  row.t = format_scalar(record.t, kDigitsOf<S>);
  row.from = model_->modes[static_cast<std::size_t>(record.from)].name;
  row.to = model_->modes[static_cast<std::size_t>(record.to)].name;
  row.kind = transition_class_name(record.kind);
  row.guard = std::string(record.guard);
  for (const S& v : record.x_pre) row.x_pre.push_back(format_scalar(v, kDigitsOf<S>));
  for (const S& v : record.x_post) row.x_post.push_back(format_scalar(v, kDigitsOf<S>));
  if (events_.is_open()) {
    events_ << row.index << ',' << row.t << ',' << row.from << ',' << row.to << ',' << row.kind << ',' << row.guard << ','
            << (record.one_sided ? 1 : 0);
    for (const auto& v : row.x_pre) events_ << ',' << v;
    for (const auto& v : row.x_post) events_ << ',' << v;
    events_ << '\n';
    events_.flush();  // the event log survives a run that fails later
  }
  rows_.push_back(std::move(row));
}

template <class S>
void Recorder<S>::on_step(S t, S h, StepLimit limit) {
  ScopedTimer timer(&seconds_);
  if (!steps_.is_open()) return;
  steps_ << format_scalar(t, kDigitsOf<S>) << ',' << format_scalar(h, kDigitsOf<S>) << ',' << step_limit_name(limit)
         << '\n';
}

template <class S>
void Recorder<S>::on_finish(const RunResult<S>&) {
  ScopedTimer timer(&seconds_);
  flush();
}

template <class S>
void Recorder<S>::flush() {
  if (trajectory_.is_open()) trajectory_.flush();
  if (events_.is_open()) events_.flush();
  if (steps_.is_open()) steps_.flush();
}

template class Recorder<double>;
template class Recorder<long double>;
template class Recorder<float128>;

}  // namespace hysim::app
