// Schedules as CSV in the format of torch.distributed.pipelining's _dump_csv / _load_csv: one line
// per rank, one action per cell, e.g. `0F0,0F1,0B0,0F2,…`. What a user writes by hand to check or time.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "common/named.h"
#include "schedules/schedule.h"
#include "schedules/comm_check.h"
#include "schedules/validate.h"

namespace pipegrid {

/// How a CSV's stages map to ranks; a CSV itself does not say.
enum class CsvPlacement {
  Inferred,  // stage s is on the rank whose line names it first
  Loop,      // stage s on rank s mod p (interleaved)
  V,         // rank r holds stages r and 2p − 1 − r (ZB-V, DualPipeV)
};
inline constexpr Named<CsvPlacement> kCsvPlacements[] = {
    {"inferred", CsvPlacement::Inferred}, {"loop", CsvPlacement::Loop}, {"v", CsvPlacement::V}};

/// A schedule read from a file, with the source column of every op for error messages.
struct CsvSchedule {
  Schedule schedule;
  std::string source;                       // the file name, as errors show it
  std::vector<int> line_of_rank;                  // 1-based line of each rank
  std::vector<std::vector<int>> column_of_op;     // 1-based column of each op
  std::vector<std::vector<int>> column_of_batch;  // 1-based column of each comm batch
  /// "FILE:LINE:COLUMN" of the op at (rank, position), for validate().
  OpLocator locator() const;
  /// "FILE:LINE:COLUMN" of a rank's comm batch, for validate_comms().
  CommLocator comm_locator() const;
};

/// Reads one rank per non-comment line (`#` starts a comment line; a UTF-8 byte order mark before the
/// first line is skipped). Cells are trimmed; empty cells (PyTorch's idle steps) and FSDP's sharding
/// cells (`0UNSHARD`, `0RESHARD`, `0REDUCE_GRAD`) are skipped. Comm cells (`0SEND_F1`, `1RECV_B0`,
/// batches `[0SEND_F1;0RECV_B0]`) make the schedule a lowered one (Schedule::comms); a file without
/// any is compute-only. The ranks are the lines, the stages 0 … max stage, the micro-batches 0 … max
/// micro-batch. Throws InputError `FILE:LINE:COLUMN: 'CELL': …` on a malformed cell (the cell as
/// shown() quotes it: escaped, cut when long). Does not validate: call validate(s.schedule, s.locator()).
CsvSchedule read_schedule_csv(std::istream& in, const std::string& source, CsvPlacement placement);
CsvSchedule read_schedule_csv_file(const std::string& path, CsvPlacement placement);

/// Writes what read_schedule_csv reads; an overlapped pair carries PyTorch's OVERLAP_F_B tag.
void write_schedule_csv(std::ostream& out, const Schedule& schedule);

}  // namespace pipegrid
