// The one exception type for bad user input: its message is the one line the user sees (exit code 2).
#pragma once

#include <stdexcept>
#include <string>

#include "common/message_text.h"

namespace pipegrid {

/// Bad input: a parameter, a file or a schedule that breaks a stated rule. The message names the
/// input and the rule in one line; the command line prints it and exits with code 2. Control bytes
/// are escaped (one_line), so that a NUL or a line break in a value cannot cut or split that line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(one_line(message)) {}
};

}  // namespace pipegrid
