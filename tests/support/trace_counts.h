// A run's trace.csv counted as the collective tests count it: rows of the comm track by GPU, kind
// and bytes, for the kinds a test asks about.
#pragma once

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "command_runner.h"

namespace pipegrid::test_support {

/// (gpu, trace kind, bytes) → number of rows.
using CommCounts = std::map<std::tuple<int, std::string, double>, int>;

/// The rows of DIR/trace.csv's comm track whose kind `keep` accepts.
inline CommCounts comm_counts(const std::string& dir, const std::function<bool(const std::string&)>& keep) {
  std::istringstream csv(read_file(dir + "/trace.csv"));
  std::string line;
  std::getline(csv, line);  // gpu,host,node,tp,dp,pp,track,kind,stage,microbatch,peer,bytes,…
  CommCounts counts;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() > 11 && cells[6] == "comm" && keep(cells[7]))
      ++counts[{std::stoi(cells[0]), cells[7], std::stod(cells[11])}];
  }
  return counts;
}

}  // namespace pipegrid::test_support
