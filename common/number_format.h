// Numbers as pipegrid prints them, the same everywhere: tables, reports, error messages.
#pragma once

#include <string>

namespace pipegrid {

/// A time or count: an integer without decimals below 1e10, else up to 10 significant digits.
std::string format_number(double value);

}  // namespace pipegrid
