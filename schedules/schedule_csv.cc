#include "schedules/schedule_csv.h"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <fstream>
#include <istream>
#include <ostream>

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/message_text.h"

namespace pipegrid {

namespace {

constexpr std::int64_t kSmallTable = 1 << 20;

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  text = text.substr(first, last - first + 1);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  return text;
}

bool is_comm_cell(std::string_view cell) {
  if (cell.starts_with('[')) return true;
  for (std::string_view tag : {"SEND_F", "RECV_F", "SEND_B", "RECV_B"})
    if (cell.find(tag) != std::string_view::npos) return true;
  return false;
}

// FSDP's parameter and gradient sharding actions of PyTorch's lowered schedules: pipegrid does not
// shard parameters, so they stand for nothing it runs.
bool is_sharding_cell(std::string_view cell) {
  for (std::string_view tag : {"UNSHARD", "RESHARD", "REDUCE_GRAD"})
    if (cell.find(tag) != std::string_view::npos) return true;
  return false;
}

std::vector<int> inferred_placement(const CsvSchedule& csv, int stages) {
  std::vector<int> rank_of_stage(stages, -1);
  const auto& programs = csv.schedule.programs;
  for (std::size_t r = 0; r < programs.size(); ++r)
    for (const Op& op : programs[r])
      for (int i = 0; i < op.size(); ++i)
        if (rank_of_stage[op[i].stage] < 0) rank_of_stage[op[i].stage] = static_cast<int>(r);
  for (int s = 0; s < stages; ++s)
    if (rank_of_stage[s] < 0)
      throw InputError(fmt::format("{}: no rank runs stage {}, but stages up to {} appear", csv.source, s, stages - 1));
  return rank_of_stage;
}

}  // namespace

OpLocator CsvSchedule::locator() const {
  return [this](int rank, std::size_t position) {
    return fmt::format("{}:{}:{}", source, line_of_rank[rank], column_of_op[rank][position]);
  };
}

CommLocator CsvSchedule::comm_locator() const {
  // A compute-only file's batches come from a comm plan, not from its cells.
  return [this](int rank, std::size_t batch) {
    if (batch >= column_of_batch[rank].size()) return locate_comm_batch(rank, batch);
    return fmt::format("{}:{}:{}", source, line_of_rank[rank], column_of_batch[rank][batch]);
  };
}

CsvSchedule read_schedule_csv(std::istream& in, const std::string& source, CsvPlacement placement) {
  CsvSchedule csv;
  csv.source = source;
  Schedule& schedule = csv.schedule;
  int max_stage = -1, max_microbatch = -1;
  std::size_t actions = 0;
  bool lowered = false;  // some cell is a comm action
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    if (line_number == 1) line = std::string(without_byte_order_mark(line));
    if (trim(line).starts_with("#")) continue;
    std::vector<Op> program;
    std::vector<CommBatch> batches;
    std::vector<int> columns, batch_columns;
    std::string_view rest = line;
    for (int column = 1;; ++column) {
      const auto comma = rest.find(',');
      const std::string_view cell = trim(rest.substr(0, comma));
      if (is_comm_cell(cell)) {
        auto batch = parse_comm_cell(cell);
        if (!batch)
          throw InputError(fmt::format("{}:{}:{}: '{}': {}", source, line_number, column, shown(cell), kCommGrammar));
        batch->before = program.size();
        actions += batch->actions.size();
        batches.push_back(std::move(*batch));
        batch_columns.push_back(column);
        lowered = true;
      } else if (!cell.empty() && !is_sharding_cell(cell)) {
        auto op = parse_op(cell);
        if (!op)
          throw InputError(fmt::format("{}:{}:{}: '{}': {}", source, line_number, column, shown(cell), kActionGrammar));
        actions += static_cast<std::size_t>(op->size());
        for (int i = 0; i < op->size(); ++i) {
          max_stage = std::max(max_stage, (*op)[i].stage);
          max_microbatch = std::max(max_microbatch, (*op)[i].microbatch);
        }
        program.push_back(*op);
        columns.push_back(column);
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    schedule.programs.push_back(std::move(program));
    schedule.comms.push_back(std::move(batches));
    csv.column_of_op.push_back(std::move(columns));
    csv.column_of_batch.push_back(std::move(batch_columns));
    csv.line_of_rank.push_back(line_number);
  }
  // A file ending in blank lines does not have extra idle ranks.
  while (!schedule.programs.empty() && schedule.programs.back().empty() && schedule.comms.back().empty()) {
    schedule.programs.pop_back();
    schedule.comms.pop_back();
    csv.column_of_op.pop_back();
    csv.column_of_batch.pop_back();
    csv.line_of_rank.pop_back();
  }
  if (!lowered) schedule.comms.clear();  // compute-only: a comm plan lowers it
  if (max_stage < 0) throw InputError(fmt::format("{}: no actions", source));
  // Every (stage, micro-batch) runs a forward and a backward, so a file naming more of them than it has
  // actions cannot be valid — and the checker's tables, one entry per pair, would outgrow any memory
  // (one cell `0F2147483647` names 2^31 micro-batches). Below a million pairs the tables are small and
  // the checker names the first action missing, which says more.
  const std::int64_t pairs = (std::int64_t{max_stage} + 1) * (std::int64_t{max_microbatch} + 1);
  if (pairs > static_cast<std::int64_t>(actions) && pairs > kSmallTable)
    throw InputError(fmt::format("{}: it names stages 0-{} and micro-batches 0-{}, {} pairs that each need a forward "
                                 "and a backward, but holds {} action(s)",
                                 source, max_stage, max_microbatch, pairs, actions));

  const int p = static_cast<int>(schedule.programs.size());
  const int stages = max_stage + 1;
  schedule.name = source;
  schedule.ranks = p;
  schedule.microbatches = max_microbatch + 1;
  schedule.chunks = (stages + p - 1) / p;
  std::vector<int> rank_of_stage;
  switch (placement) {
    case CsvPlacement::Inferred: rank_of_stage = inferred_placement(csv, stages); break;
    case CsvPlacement::Loop: rank_of_stage = loop_placement(p, schedule.chunks); break;
    case CsvPlacement::V:
      if (stages > 2 * p)
        throw InputError(fmt::format("{}: V placement holds 2 x {} stages, but stage {} appears", source, p, max_stage));
      rank_of_stage = v_placement(p);
      break;
  }
  rank_of_stage.resize(stages);
  schedule.layout = StageLayout::chain(std::move(rank_of_stage), schedule.microbatches);
  return csv;
}

CsvSchedule read_schedule_csv_file(const std::string& path, CsvPlacement placement) {
  refuse_directory(path);
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  return read_schedule_csv(in, path, placement);
}

void write_schedule_csv(std::ostream& out, const Schedule& schedule) {
  for (int rank = 0; rank < schedule.ranks; ++rank) {
    const auto& program = schedule.programs[rank];
    const std::vector<CommBatch> none;
    const auto& batches = schedule.has_comms() ? schedule.comms[rank] : none;
    std::size_t next_batch = 0;
    bool first = true;
    const auto cell = [&](const std::string& text) {
      if (!first) out << ',';
      out << text;
      first = false;
    };
    for (std::size_t i = 0; i <= program.size(); ++i) {
      for (; next_batch < batches.size() && batches[next_batch].before == i; ++next_batch)
        cell(to_string(batches[next_batch]));
      if (i == program.size()) break;
      cell(to_string(program[i]) + (program[i].is_pair() ? "OVERLAP_F_B" : ""));
    }
    out << '\n';
  }
}

}  // namespace pipegrid
