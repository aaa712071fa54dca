#include "sim/output/schedule_trace.h"

#include <cstdio>
#include <fmt/format.h>

#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"
#include "schedules/stage_chunks.h"

namespace pipegrid::output {

void write_schedule_trace(const std::string& dir, const Schedule& s, const Timing& timing,
                          const std::vector<MessageSpan>& messages) {
  AtomicFile file(output_path(dir, OutputFile::TraceCsv));
  std::FILE* out = file.file();
  fmt::print(out, "{}", csv_header(OutputFile::TraceCsv));
  const std::vector<int> chunk = chunks_of_stages(s.layout);
  for (int r = 0; r < s.ranks; ++r) {
    for (std::size_t pos = 0; pos < timing.ops_run[r]; ++pos) {
      const Op& op = s.programs[r][pos];
      const OpSpan& span = timing.spans[r][pos];
      for (int i = 0; i < op.size(); ++i)
        fmt::print(out, "{0},rank {0},{0},0,0,{0},compute,{1},{2},{3},,0,{4},{5},{6},{7}\n", r, kind_letter(op[i].kind),
                   op[i].stage, op[i].microbatch, span.start, span.end, chunk[op[i].stage],
                   direction_of(s, op[i].stage));
    }
    for (const MessageSpan& m : messages)
      if (m.from == r)
        fmt::print(out, "{0},rank {0},{0},0,0,{0},comm,p2p,{1},{2},rank {3},0,{4},{5},,\n", r, m.result.stage,
                   m.result.microbatch, m.to, m.start, m.end);
  }
  file.commit();
}

}  // namespace pipegrid::output
