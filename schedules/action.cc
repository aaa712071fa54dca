#include "schedules/action.h"

#include <charconv>
#include <limits>

namespace pipegrid {

char kind_letter(Kind kind) {
  switch (kind) {
    case Kind::F: return 'F';
    case Kind::B: return 'B';
    case Kind::I: return 'I';
    case Kind::W: return 'W';
  }
  return '?';
}

std::string to_string(const Action& action) {
  std::string text = std::to_string(action.stage);
  text += kind_letter(action.kind);
  text += std::to_string(action.microbatch);
  return text;
}

std::string to_string(const Op& op) {
  if (!op.is_pair()) return to_string(op.first);
  std::string text(1, '(');
  text += to_string(op.first);
  text += ';';
  text += to_string(*op.second);
  text += ')';
  return text;
}

namespace {

std::optional<Kind> kind_of_letter(char c) {
  switch (c) {
    case 'F': return Kind::F;
    case 'B': return Kind::B;
    case 'I': return Kind::I;
    case 'W': return Kind::W;
    default: return std::nullopt;
  }
}

std::optional<Action> parse_action(std::string_view text) {
  auto stage = take_number(text);
  if (!stage || text.empty()) return std::nullopt;
  auto kind = kind_of_letter(text.front());
  if (!kind) return std::nullopt;
  text.remove_prefix(1);
  auto microbatch = take_number(text);
  if (!microbatch || !text.empty()) return std::nullopt;
  return Action{*stage, *microbatch, *kind};
}

}  // namespace

std::optional<std::int32_t> take_number(std::string_view& text) {
  std::int32_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data() || text.front() == '-') return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

std::optional<Op> parse_op(std::string_view text) {
  if (text.empty() || text.front() != '(') {
    auto action = parse_action(text);
    if (!action) return std::nullopt;
    return Op(*action);
  }
  // PyTorch writes an overlapped pair as `(0F7;7B3)OVERLAP_F_B`; the tag adds nothing we need.
  constexpr std::string_view kOverlapTag = "OVERLAP_F_B";
  if (text.ends_with(kOverlapTag)) text.remove_suffix(kOverlapTag.size());
  if (text.size() < 2 || text.back() != ')') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  auto semicolon = text.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  auto first = parse_action(text.substr(0, semicolon));
  auto second = parse_action(text.substr(semicolon + 1));
  if (!first || !second) return std::nullopt;
  return Op(*first, *second);
}

}  // namespace pipegrid
