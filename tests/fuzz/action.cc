// Fuzzes the action notation (schedules/action.h): parse_op on any text. It must never crash; what it
// accepts must name non-negative stages and micro-batches and read back, written by to_string, as
// the same op (with PyTorch's OVERLAP_F_B tag after a pair too).
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "schedules/action.h"

using namespace pipegrid;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::optional<Op> op = parse_op(fuzz::text_of(data, size));
  if (!op) {
    fuzz::rejected("not an action");
    return 0;
  }
  fuzz::accepted(to_string(*op));
  for (int i = 0; i < op->size(); ++i)
    fuzz::check((*op)[i].stage >= 0 && (*op)[i].microbatch >= 0, "negative stage or micro-batch in " + to_string(*op));
  const std::string written = to_string(*op);
  fuzz::check(parse_op(written) == op, "to_string(op) = " + written + " does not read back as the same op");
  if (op->is_pair())
    fuzz::check(parse_op(written + "OVERLAP_F_B") == op, written + "OVERLAP_F_B does not read back as the same op");
  return 0;
}
