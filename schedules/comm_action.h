// Communication as actions of a rank's program, in torch.distributed.pipelining's notation:
// `1SEND_F0` (stage 1 sends micro-batch 0's activation to the next stage), `2RECV_F0` (stage 2
// receives it), `2SEND_B0` (stage 2 sends the gradient of its input back), `1RECV_B0`. The stage of a
// RECV is the receiving stage, as PyTorch's _add_send_recv writes it. Several actions posted together
// and waited together (one batch_isend_irecv and its wait, Megatron's _communicate) are written as a
// batch `[1SEND_F0;1RECV_B0]`; PyTorch's own cells are batches of one whose wait comes at the use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid {

enum class CommKind : std::uint8_t { SendF, RecvF, SendB, RecvB };

constexpr bool is_send(CommKind kind) { return kind == CommKind::SendF || kind == CommKind::SendB; }
std::string_view comm_kind_name(CommKind kind);  // "SEND_F", …

struct CommAction {
  std::int32_t stage = 0;
  std::int32_t microbatch = 0;
  CommKind kind = CommKind::SendF;

  friend bool operator==(const CommAction&, const CommAction&) = default;
};

/// When a batch's rank waits for it. AtUse is PyTorch's runtime: a receive is waited by the compute
/// that reads it, a send at the end of the step. Now is Megatron's (_communicate with wait_on_reqs):
/// the rank waits for every action of the batch before it goes on.
enum class CommWait : std::uint8_t { AtUse, Now };

/// Comm actions posted together, between two compute ops of a rank's program.
struct CommBatch {
  std::size_t before = 0;  // the position of the compute op it precedes (the program's size: after the last)
  CommWait wait = CommWait::AtUse;
  std::vector<CommAction> actions;

  friend bool operator==(const CommBatch&, const CommBatch&) = default;
};

std::string to_string(const CommAction& action);
/// A batch of one waited at its use is written as its action, as PyTorch writes it; anything else as
/// `[a;b]`.
std::string to_string(const CommBatch& batch);

/// Parses one comm cell (`0SEND_F1` or a batch `[0SEND_F1;0RECV_B0]`); nullopt when it is not one.
/// The batch's `before` is left for the caller.
std::optional<CommBatch> parse_comm_cell(std::string_view text);

inline constexpr std::string_view kCommGrammar =
    "expected <stage><SEND_F|RECV_F|SEND_B|RECV_B><microbatch> such as 0SEND_F1, or a batch such as "
    "[0SEND_F1;0RECV_B0]";

}  // namespace pipegrid
