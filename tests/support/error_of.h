// The message of the error a piece of code throws: what the input-error tests compare with the exact
// one-line text a user sees.
#pragma once

#include <exception>
#include <string>

namespace pipegrid::test_support {

/// The message of the exception `f` throws, or "" when it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace pipegrid::test_support
