// The one exception type for bad user input: its message is the one line the user sees (exit code 2).
#pragma once

#include <stdexcept>
#include <string>

namespace pipegrid {

/// Bad input: a parameter, a file or a schedule that breaks a stated rule. The message names the
/// input and the rule in one line; the command line prints it and exits with code 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace pipegrid
