// A write that failed — to stdout or to an output file — is exit code 74 (EX_IOERR), never a silent 0.
// The message names the file, or stdout, and the system's reason, in the one line every error has:
// "pipegrid: error: out/trace.csv: No space left on device".
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>

namespace pipegrid {

/// A write, flush or close that failed. The command line prints "pipegrid: error: <what>" and exits 74.
class IoError : public std::runtime_error {
 public:
  explicit IoError(const std::string& message) : std::runtime_error(message) {}
};

/// IoError "WHAT: <the system's text for errno `error`>".
[[noreturn]] inline void throw_io_error(const std::string& what, int error) {
  throw IoError(what + ": " + std::strerror(error));
}

}  // namespace pipegrid
