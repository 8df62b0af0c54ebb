#include "hysim/output/csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <limits>
#include <system_error>

#include "hysim/core/errors.hpp"

namespace hysim {

namespace {

template <class S>
constexpr int kDigitsOf = std::numeric_limits<S>::max_digits10;

// Appends v with the round-trip digits of S.
template <class S>
void append_number(std::string& line, const S& v) {
  append_scalar(line, v, kDigitsOf<S>);
}

std::ofstream open_csv(const std::filesystem::path& path) {
  errno = 0;
  std::ofstream out(path);
  if (!out) {
    const int error = errno;
    // A full disk is the machine's state, not a bad argument (exit 1, not 2).
    if (error == ENOSPC || error == EDQUOT || error == EIO) throw Error("write failed: " + path.string() + ": " + std::strerror(error));
    throw InvalidArgument("cannot write " + path.string() + (error ? ": " + std::string(std::strerror(error)) : ""));
  }
  return out;
}

}  // namespace

template <class S>
CsvWriter<S>::CsvWriter(const std::filesystem::path& folder, CsvFiles files) : folder_(folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw InvalidArgument("cannot create the output folder " + folder.string() + ": " + error.message());
  if (files.events) events_ = open_csv(folder / "events.csv");
  if (files.trajectory) trajectory_ = open_csv(folder / "trajectory.csv");
  if (files.steps) steps_ = open_csv(folder / "steps.csv");
}

template <class S>
std::vector<std::filesystem::path> CsvWriter<S>::files() const {
  std::vector<std::filesystem::path> out;
  if (events_.is_open()) out.push_back(folder_ / "events.csv");
  if (trajectory_.is_open()) out.push_back(folder_ / "trajectory.csv");
  if (steps_.is_open()) out.push_back(folder_ / "steps.csv");
  return out;
}

template <class S>
void CsvWriter<S>::on_start(const Model<S>& model, const SimulationOptions&) {
  model_ = &model;
  if (trajectory_.is_open()) {
    trajectory_ << "t,mode";
    for (const auto& name : model.state_names) trajectory_ << ',' << name;
    trajectory_ << '\n';
    check(trajectory_);
  }
  if (events_.is_open()) {
    events_ << "index,t,from,to,class,guard,one_sided";
    for (const auto& name : model.state_names) events_ << ',' << name;
    for (const auto& name : model.state_names) events_ << ',' << name << '+';
    events_ << '\n';
    events_.flush();
    check(events_);
  }
  if (steps_.is_open()) {
    steps_ << "t,h,limit\n";
    check(steps_);
  }
}

template <class S>
void CsvWriter<S>::on_sample(S t, int mode, std::span<const S> x) {
  last_t_ = t;
  if (!trajectory_.is_open()) return;
  line_.clear();
  append_number(line_, t);
  line_ += ',';
  line_ += model_->modes[static_cast<std::size_t>(mode)].name;
  for (const S& v : x) {
    line_ += ',';
    append_number(line_, v);
  }
  line_ += '\n';
  trajectory_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  check(trajectory_);
}

template <class S>
void CsvWriter<S>::on_event(const EventRecord<S>& r) {
  if (!events_.is_open()) return;
  line_.clear();
  line_ += std::to_string(r.index);
  line_ += ',';
  append_number(line_, r.t);
  for (const std::string_view cell : {std::string_view(model_->modes[static_cast<std::size_t>(r.from)].name),
                                      std::string_view(model_->modes[static_cast<std::size_t>(r.to)].name),
                                      std::string_view(transition_class_name(r.kind)), std::string_view(r.guard),
                                      std::string_view(r.one_sided ? "1" : "0")}) {
    line_ += ',';
    line_ += cell;
  }
  for (const S& v : r.x_pre) {
    line_ += ',';
    append_number(line_, v);
  }
  for (const S& v : r.x_post) {
    line_ += ',';
    append_number(line_, v);
  }
  line_ += '\n';
  events_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  events_.flush();  // the event log survives a run that fails later
  check(events_);
}

template <class S>
void CsvWriter<S>::on_step(S t, S h, StepLimit limit) {
  if (!steps_.is_open()) return;
  line_.clear();
  append_number(line_, t);
  line_ += ',';
  append_number(line_, h);
  line_ += ',';
  line_ += step_limit_name(limit);
  line_ += '\n';
  steps_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  check(steps_);
}

template <class S>
void CsvWriter<S>::on_finish(const RunResult<S>&) {
  flush();
}

template <class S>
void CsvWriter<S>::flush() {
  for (std::ofstream* stream : {&trajectory_, &events_, &steps_}) {
    if (!stream->is_open() || !*stream) continue;
    errno = 0;
    stream->flush();
    if (!*stream && error_.empty()) error_ = failure(*stream, errno);
  }
}

template <class S>
std::string CsvWriter<S>::failure(const std::ofstream& stream, int error) const {
  const char* name = &stream == &events_ ? "events.csv" : &stream == &trajectory_ ? "trajectory.csv" : "steps.csv";
  return "write failed: " + (folder_ / name).string() + ": " + (error != 0 ? std::strerror(error) : "write error");
}

template <class S>
void CsvWriter<S>::check(const std::ofstream& stream) {
  // A stream fails when its buffer cannot be written (a full disk, a file size limit): the
  // run stops there, as a failed run, instead of computing rows that are lost. errno is that
  // of the write that failed: nothing between it and here sets it.
  if (stream) return;
  if (error_.empty()) error_ = failure(stream, errno);
  throw SimulationError(error_);
}

template <class S>
void CsvWriter<S>::check_written() {
  flush();
  if (!error_.empty()) throw Error(error_);
}

template class CsvWriter<double>;
template class CsvWriter<long double>;
template class CsvWriter<float128>;

}  // namespace hysim
