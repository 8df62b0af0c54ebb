// The library's output API (hysim/output/): CsvWriter creates its folder and streams the event
// log, the trajectory and the step log; ReportWriter writes stats.json; several observers share
// one run through Observers. Each file is read back and checked against the run's own result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <limits>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/output/csv_writer.hpp"
#include "hysim/output/run_report.hpp"
#include "test_support.hpp"

namespace hysim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

class OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hysim-output-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(OutputTest, CsvAndReportOfABouncingBallMatchTheRun) {
  // The example of docs/library.md, "Outputs".
  SimulationOptions options;
  options.t_end = 6.0;
  options.output_step = 0.25;
  const ModelEntry& entry = find_model("bouncing-ball");
  const Model<double> model = entry.make<double>(entry.default_values());
  const fs::path folder = root_ / "nested" / "ball";  // created with its parents
  CsvWriter<double> csv(folder);
  ReportWriter<double> report(folder / "stats.json");
  Observers<double> both{&csv, &report};
  Simulator<double> simulator(model, options);
  const RunResult<double> result = simulator.run(&both);
  ASSERT_FALSE(result.failed()) << result.message;
  ASSERT_GT(result.stats.events, 2);

  // events.csv: a header and one row per transition; the t column reads back exactly.
  const auto events = lines_of(folder / "events.csv");
  ASSERT_EQ(events.size(), static_cast<std::size_t>(result.stats.transitions) + 1);
  EXPECT_EQ(events[0].rfind("index,t,from,to,class,guard,one_sided", 0), 0u);
  std::int64_t last_index = 0, distinct = 0;
  for (std::size_t i = 1; i < events.size(); ++i) {
    const auto cells = cells_of(events[i]);
    ASSERT_EQ(cells.size(), 7 + 2 * model.state_names.size()) << events[i];
    const std::int64_t index = std::stoll(cells[0]);
    if (index != last_index) ++distinct;
    last_index = index;
  }
  EXPECT_EQ(distinct, result.stats.events);

  // trajectory.csv: t0, the grid t0 + k/4 (exactly representable), the events' sides, t_end.
  const auto trajectory = lines_of(folder / "trajectory.csv");
  ASSERT_GT(trajectory.size(), 13u);
  EXPECT_EQ(cells_of(trajectory[1])[0], "0");
  EXPECT_DOUBLE_EQ(std::stod(cells_of(trajectory.back())[0]), result.t);
  int grid_points = 0;
  for (std::size_t i = 1; i < trajectory.size(); ++i) {
    const double t = std::stod(cells_of(trajectory[i])[0]);
    if (t > 0 && t < 6 && std::fmod(t, 0.25) == 0.0) ++grid_points;
  }
  EXPECT_EQ(grid_points, 23);  // 0.25 .. 5.75
  EXPECT_EQ(csv.last_t(), result.t);

  // steps.csv: one row per accepted step.
  EXPECT_EQ(lines_of(folder / "steps.csv").size(), static_cast<std::size_t>(result.stats.steps_accepted) + 1);

  // stats.json: the model, every option, the result and the counters.
  std::ifstream in(folder / "stats.json");
  const nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_EQ(json["model"], model.name);
  EXPECT_EQ(json["options"]["t_end"], 6.0);
  EXPECT_EQ(json["options"]["output_step"], 0.25);
  EXPECT_EQ(json["result"]["reason"], run_reason_name(result.reason));
  EXPECT_EQ(json["stats"]["events"], result.stats.events);
  EXPECT_EQ(json["stats"]["guard_evals"], result.stats.guard_evals);
  EXPECT_GE(json["stats"]["wall_seconds"].get<double>(), 0.0);
  EXPECT_FALSE(json.contains("error"));
  EXPECT_FALSE(fs::exists(folder / "stats.json.partial"));
}

TEST_F(OutputTest, ChosenFilesOnly) {
  CsvWriter<double> csv(root_, CsvFiles{.events = true, .trajectory = false, .steps = false});
  ASSERT_EQ(csv.files().size(), 1u);
  EXPECT_EQ(csv.files()[0], root_ / "events.csv");
  EXPECT_FALSE(fs::exists(root_ / "trajectory.csv"));
}

TEST_F(OutputTest, AFailedRunIsReportedWithItsError) {
  // dx/dt = 1 until t = 0.5, then NaN: the run fails.
  Model<double> model;
  model.name = "poisoned";
  model.state_names = {"x"};
  model.x0 = {0.0};
  model.add_mode("rising", [](double t, const double*, double* dxdt) { dxdt[0] = t < 0.5 ? 1.0 : std::nan(""); });
  model.finalize();
  SimulationOptions options;
  ReportWriter<double> report(root_ / "stats.json");
  fs::create_directories(root_);
  Simulator<double> simulator(model, options);
  const RunResult<double> result = simulator.run(&report);
  std::ifstream in(root_ / "stats.json");
  const nlohmann::json json = nlohmann::json::parse(in);
  ASSERT_TRUE(result.failed());
  EXPECT_EQ(json["error"], result.message);
  EXPECT_FALSE(json.contains("result"));
  EXPECT_EQ(json["stats"]["events"], result.stats.events);
}

TEST_F(OutputTest, UnwritablePlacesAreNamed) {
  fs::create_directories(root_);
  std::ofstream(root_ / "file") << "x";
  try {
    CsvWriter<double> csv(root_ / "file" / "below");  // a file where a folder should be
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find((root_ / "file" / "below").string()), std::string::npos) << e.what();
  }
  try {
    write_json(root_ / "missing" / "stats.json", nlohmann::json::object());
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("missing/stats.json"), std::string::npos) << e.what();
  }
}

// The numbers of every file are written by append_scalar (std::to_chars): the text must be
// that of a stream with setprecision, as before, for awkward values of each type.
template <class S>
void expect_stream_text(const std::vector<S>& values) {
  for (const S& v : values) {
    for (const int digits : {1, 6, 10, std::numeric_limits<S>::max_digits10}) {
      std::ostringstream stream;
      stream << std::setprecision(digits) << v;
      EXPECT_EQ(format_scalar(v, digits), stream.str()) << digits << " digits";
    }
  }
}

TEST(AppendScalar, SameTextAsAStream) {
  std::vector<double> doubles = {0.0, -0.0, 1.0, 0.1, -2.5e-300, 1e300, 123456789012345678.0, 4.9e-324,
                                 std::numeric_limits<double>::infinity(), 1.0 / 3.0, 1e-5, 1e16, 99999.5};
  std::vector<long double> longs = {0.0L, 0.1L, 1.0L / 3.0L, -1e-4000L, 1e4000L, 1e-5L, 12345678901234567890.0L};
  std::uint64_t state = 88172645463325252ull;  // xorshift64: reproducible bit patterns
  for (int i = 0; i < 2000; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    double d;
    std::memcpy(&d, &state, sizeof d);
    if (std::isfinite(d)) doubles.push_back(d);
    longs.push_back(static_cast<long double>(d) * (1.0L + 1e-17L));
  }
  expect_stream_text(doubles);
  expect_stream_text(longs);
}

}  // namespace
}  // namespace hysim
