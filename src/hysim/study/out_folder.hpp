// The --out folder of a command. A folder used before may hold files of the command's names
// from an earlier run that this one does not write (its steps.csv when this run has --files
// events, a sweep's runs/7/ when this sweep has 5 runs): they are removed before anything is
// written, so that the folder never mixes two runs. Files of other names, a user's, are left
// alone (docs/cli.md, "Output folders").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace hysim::study {

// Creates `folder` and its parents for a command's --out. Throws InvalidArgument naming the
// folder and why: "cannot create the output folder 'X': Permission denied".
void create_output_folder(const std::filesystem::path& folder);

// Creates `folder` (with its parents) and removes from it every file named in `own` (the
// command's names) that is not in `writes`, and the `.partial` file of each (an interrupted
// write_json). A file this run writes is replaced when it is opened. Throws InvalidArgument
// when the folder cannot be created, Error naming a file that cannot be removed.
void prepare_out_folder(const std::filesystem::path& folder, const std::vector<std::string>& own,
                        const std::vector<std::string>& writes);

// A sweep's per-run files, folder/runs/<run>/events.csv and trajectory.csv: removes those of
// every run for which keep_run(run) is false, then each such folder and runs/ when that leaves
// them empty.
void remove_stale_runs(const std::filesystem::path& folder, const std::function<bool(std::int64_t)>& keep_run);

}  // namespace hysim::study
