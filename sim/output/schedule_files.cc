#include "sim/output/schedule_files.h"

#include "schedules/schedule_csv.h"
#include "sim/output/atomic_file.h"
#include "sim/output/run_folder.h"
#include "sim/output/schedule_trace.h"

namespace pipegrid::output {

namespace {

void write_programs(const std::string& dir, const Schedule& schedule) {
  AtomicFile csv(output_path(dir, OutputFile::ScheduleCsv));
  write_schedule_csv(csv.stream(), schedule);
  csv.commit();
}

}  // namespace

void write_schedule_files(const std::string& dir, const nlohmann::json& summary, const Schedule& schedule,
                          const Timing& timing, const std::vector<MessageSpan>& messages) {
  make_output_dir(dir);
  write_json(dir, OutputFile::Summary, summary);
  write_programs(dir, schedule);
  write_schedule_trace(dir, schedule, timing, messages);
}

void write_schedule_deadlock_files(const std::string& dir, const nlohmann::json& deadlock, const Schedule& schedule,
                                   const Timing& partial, const std::vector<MessageSpan>& messages) {
  make_output_dir(dir);
  write_json(dir, OutputFile::Deadlock, deadlock);
  write_programs(dir, schedule);
  write_schedule_trace(dir, schedule, partial, messages);
}

}  // namespace pipegrid::output
