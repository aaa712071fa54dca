// A flag whose value names one of a fixed set of choices (--p2p async|blocking|batched, …). Checked here
// rather than by CLI11 so that a wrong value gets pipegrid's one-line error listing the choices.
#pragma once

#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.h"

namespace pipegrid {

/// The choice named `given`; InputError "FLAG GIVEN: must be one of A, B, C" otherwise.
template <typename Choice>
Choice choose(const char* flag, const std::string& given, const std::vector<std::pair<std::string, Choice>>& choices) {
  std::string names;
  for (const auto& [name, choice] : choices) {
    if (name == given) return choice;
    names += (names.empty() ? "" : ", ") + name;
  }
  throw InputError(fmt::format("{} {}: must be one of {}", flag, given, names));
}

}  // namespace pipegrid
