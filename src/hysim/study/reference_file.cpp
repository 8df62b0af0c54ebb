#include "hysim/study/reference_file.hpp"

#include <fstream>
#include <sstream>

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"

namespace hysim::study {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

Reference read_reference_events(const std::string& path, const std::vector<std::string>& state_names) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument("--reference: cannot read '" + path + "'");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = split(line);
  const std::vector<std::string> fixed = {"index", "t", "from", "to", "class", "guard", "one_sided"};
  std::vector<std::string> expected = fixed;
  expected.insert(expected.end(), state_names.begin(), state_names.end());
  for (const auto& name : state_names) expected.push_back(name + "+");
  if (header != expected) {
    std::string states;
    for (const auto& name : state_names) states += (states.empty() ? "" : ",") + name;
    throw InvalidArgument("--reference: '" + path + "' is not the events.csv of a run of this model (expected the header " +
                          "index,t,from,to,class,guard,one_sided," + states + ",...)");
  }
  Reference reference;
  reference.method = "the events of an earlier run, read from " + path;
  std::string last_index;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line);
    const std::string where = "--reference: " + path + ":" + std::to_string(number);
    if (cells.size() != expected.size()) throw InvalidArgument(where + ": expected " + std::to_string(expected.size()) + " cells");
    if (cells[0] == last_index) {  // a later row of the same chain: the mode finally entered
      reference.events.back().to = cells[3];
      continue;
    }
    last_index = cells[0];
    ReferenceEvent event;
    event.t = parse_decimal<float128>(cells[1], where + ": t");
    event.from = cells[2];
    event.to = cells[3];
    event.guard = cells[5];
    for (std::size_t i = 0; i < state_names.size(); ++i) {
      event.x.push_back(parse_decimal<float128>(cells[fixed.size() + i], where + ": " + state_names[i]));
    }
    if (!reference.events.empty() && event.t < reference.events.back().t) {
      throw InvalidArgument(where + ": events are not in time order");
    }
    reference.events.push_back(std::move(event));
  }
  return reference;
}

}  // namespace hysim::study
