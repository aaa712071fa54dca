#include "schedules/comm_action.h"

#include "schedules/action.h"

#include <array>

namespace pipegrid {

namespace {

constexpr std::array<std::pair<CommKind, std::string_view>, 4> kNames{{{CommKind::SendF, "SEND_F"},
                                                                       {CommKind::RecvF, "RECV_F"},
                                                                       {CommKind::SendB, "SEND_B"},
                                                                       {CommKind::RecvB, "RECV_B"}}};

std::optional<CommAction> parse_comm_action(std::string_view text) {
  const auto stage = take_number(text);
  if (!stage) return std::nullopt;
  for (const auto& [kind, name] : kNames) {
    if (!text.starts_with(name)) continue;
    text.remove_prefix(name.size());
    const auto microbatch = take_number(text);
    if (!microbatch || !text.empty()) return std::nullopt;
    return CommAction{*stage, *microbatch, kind};
  }
  return std::nullopt;
}

}  // namespace

std::string_view comm_kind_name(CommKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "?";
}

std::string to_string(const CommAction& action) {
  return std::to_string(action.stage) + std::string(comm_kind_name(action.kind)) + std::to_string(action.microbatch);
}

std::string to_string(const CommBatch& batch) {
  if (batch.actions.size() == 1 && batch.wait == CommWait::AtUse) return to_string(batch.actions.front());
  std::string text = "[";
  for (std::size_t i = 0; i < batch.actions.size(); ++i) {
    if (i) text += ';';
    text += to_string(batch.actions[i]);
  }
  return text + "]";
}

std::optional<CommBatch> parse_comm_cell(std::string_view text) {
  CommBatch batch;
  if (!text.starts_with('[')) {
    const auto action = parse_comm_action(text);
    if (!action) return std::nullopt;
    batch.actions.push_back(*action);
    return batch;
  }
  if (text.size() < 3 || !text.ends_with(']')) return std::nullopt;
  text = text.substr(1, text.size() - 2);
  batch.wait = CommWait::Now;
  while (true) {
    const auto semicolon = text.find(';');
    const auto action = parse_comm_action(text.substr(0, semicolon));
    if (!action) return std::nullopt;
    batch.actions.push_back(*action);
    if (semicolon == std::string_view::npos) return batch;
    text.remove_prefix(semicolon + 1);
  }
}

}  // namespace pipegrid
