#include "sim/output/simulation_files.h"

#include <algorithm>

#include "sim/output/links_csv.h"
#include "sim/output/run_folder.h"

namespace pipegrid::output {

std::vector<OutputFile> write_simulation_files(const std::string& dir, const nlohmann::json& summary,
                                               const sim::SimulationResult& result, bool link_timeline) {
  write_json(dir, OutputFile::Summary, summary);
  write_links_csv(dir, result);
  if (!link_timeline) return {OutputFile::Summary, OutputFile::Links};
  write_links_timeline_csv(dir, result);
  return {OutputFile::Summary, OutputFile::Links, OutputFile::LinksTimeline};
}

std::string written_line(const std::string& dir, const std::vector<OutputFile>& files) {
  std::vector<std::string_view> names;
  for (OutputFile file : files)
    if (file != OutputFile::PlatformXml) names.push_back(output_file(file).name);
  if (std::find(files.begin(), files.end(), OutputFile::TraceCsv) == files.end()) names.push_back("no trace");
  // A generated platform's file comes last, after what the run itself wrote.
  if (std::find(files.begin(), files.end(), OutputFile::PlatformXml) != files.end())
    names.push_back(output_file(OutputFile::PlatformXml).name);
  std::string line = "wrote " + dir + "/";
  for (std::size_t i = 0; i < names.size(); ++i) (line += i ? ", " : "") += names[i];
  return line;
}

}  // namespace pipegrid::output
