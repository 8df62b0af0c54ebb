// The --out folder of a command (hysim/study/out_folder.hpp).
#include "hysim/study/out_folder.hpp"

#include "hysim/core/printable.hpp"

#include <algorithm>
#include <system_error>

#include "hysim/core/errors.hpp"

namespace hysim::study {

namespace fs = std::filesystem;

void create_output_folder(const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    throw InvalidArgument("cannot create the output folder '" + printable(folder.string()) + "': " + error.message());
  }
}

namespace {

// Removes `file` when it is a file (or a link: a link is replaced, never followed).
void remove_file(const fs::path& file) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(file, error);
  if (error || !(fs::is_regular_file(status) || fs::is_symlink(status))) return;
  if (!fs::remove(file, error) && error) {
    throw Error("cannot remove " + file.string() + " left by an earlier run: " + error.message());
  }
}

bool is_run_number(const std::string& name) {
  return !name.empty() && name.size() < 19 && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void prepare_out_folder(const fs::path& folder, const std::vector<std::string>& own,
                        const std::vector<std::string>& writes) {
  create_output_folder(folder);
  for (const std::string& name : own) {
    remove_file(folder / (name + ".partial"));
    if (std::find(writes.begin(), writes.end(), name) == writes.end()) remove_file(folder / name);
  }
}

void remove_stale_runs(const fs::path& folder, const std::function<bool(std::int64_t)>& keep_run) {
  std::error_code error;
  const fs::path runs = folder / "runs";
  if (!fs::is_directory(fs::symlink_status(runs, error))) return;
  std::vector<fs::path> stale;  // collected first: removing while reading the folder may skip entries
  for (const fs::directory_entry& entry : fs::directory_iterator(runs, error)) {
    const std::string name = entry.path().filename().string();
    if (!is_run_number(name) || entry.is_symlink(error) || !entry.is_directory(error)) continue;
    if (!keep_run(std::stoll(name))) stale.push_back(entry.path());
  }
  for (const fs::path& run : stale) {
    remove_file(run / "events.csv");
    remove_file(run / "trajectory.csv");
    fs::remove(run, error);  // only when empty: a user's file keeps it
  }
  fs::remove(runs, error);  // likewise
}

}  // namespace hysim::study
