// The action notation of torch.distributed.pipelining, which pipegrid reads and writes:
// `<stage><kind><microbatch>` (`2F0`, `3B1`, `0I4`, `0W4`) and an overlapped forward/backward pair
// `(0F7;7B3)`, optionally followed by PyTorch's `OVERLAP_F_B` tag.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pipegrid {

/// What a compute action does. B is the full backward; a schedule that splits it runs I (gradient
/// with respect to the stage's input, on the critical path) and W (gradient with respect to the
/// weights, deferrable) instead. Beware: the zero-bubble paper's "B" is our I.
enum class Kind : std::uint8_t { F, B, I, W };

char kind_letter(Kind kind);
constexpr bool is_backward(Kind kind) { return kind != Kind::F; }

/// One computation of one micro-batch on one virtual stage (a chunk of the model).
struct Action {
  std::int32_t stage = 0;
  std::int32_t microbatch = 0;
  Kind kind = Kind::F;

  friend bool operator==(const Action&, const Action&) = default;
};

/// One slot of a rank's program: a single action, or an overlapped pair whose two halves run as one
/// computation (DualPipe's F&B). An overlapped pair counts as both of its actions for dependencies.
struct Op {
  Action first;
  std::optional<Action> second;

  Op() = default;
  Op(Action a) : first(a) {}  // NOLINT(google-explicit-constructor): an action is a one-action op
  Op(Action a, Action b) : first(a), second(b) {}

  bool is_pair() const { return second.has_value(); }
  int size() const { return is_pair() ? 2 : 1; }
  const Action& operator[](int i) const { return i == 0 ? first : *second; }

  friend bool operator==(const Op&, const Op&) = default;
};

std::string to_string(const Action& action);
/// A pair is written `(0F7;7B3)`, without PyTorch's OVERLAP_F_B tag (which parse_op accepts).
std::string to_string(const Op& op);

/// Reads a non-negative decimal number that fits an int32 from the front of `text`, consuming it: the
/// stage and micro-batch of every cell, compute or comm.
std::optional<std::int32_t> take_number(std::string_view& text);

/// Parses one cell; nullopt when the text is not an action. The caller names the cell in its error.
std::optional<Op> parse_op(std::string_view text);

/// The grammar parse_op accepts, for error messages.
inline constexpr std::string_view kActionGrammar =
    "expected <stage><F|B|I|W><microbatch> such as 2F0, or a pair such as (0F7;7B3)";

}  // namespace pipegrid
