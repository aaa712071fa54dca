#include "sim/platform/units.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <utility>
#include <vector>

namespace pipegrid::platform {

namespace {

struct Unit {
  std::string name;
  double scale;
};
using UnitTable = std::vector<Unit>;

// SimGrid builds its tables the same way (unit_scale in xbt_parse_units.cpp): the base unit, then
// each prefix multiplies the previous scale by 1000 or 1024, so the doubles are the very same.
void add_prefixed(UnitTable& table, const std::string& base, double scale, bool binary, bool spelled_out) {
  static const std::vector<std::string> kDecimal = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
  static const std::vector<std::string> kDecimalWords = {"kilo", "mega", "giga", "tera",
                                                         "peta", "exa",  "zeta", "yotta"};
  static const std::vector<std::string> kBinary = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
  const auto& prefixes = binary ? kBinary : spelled_out ? kDecimalWords : kDecimal;
  table.push_back({base, scale});
  for (const std::string& prefix : prefixes) {
    scale *= binary ? 1024.0 : 1000.0;
    table.push_back({prefix + base, scale});
  }
}

const UnitTable& speed_units() {
  static const UnitTable table = [] {
    UnitTable t;
    add_prefixed(t, "f", 1.0, false, false);
    add_prefixed(t, "flops", 1.0, false, true);
    return t;
  }();
  return table;
}

const UnitTable& bandwidth_units() {
  static const UnitTable table = [] {
    UnitTable t;
    add_prefixed(t, "bps", 0.125, true, false);
    add_prefixed(t, "bps", 0.125, false, false);
    add_prefixed(t, "Bps", 1.0, true, false);
    add_prefixed(t, "Bps", 1.0, false, false);
    return t;
  }();
  return table;
}

// xbt_parse_get_size: bytes (B) and bits (b, 8 b = 1 B), each with binary and decimal prefixes.
const UnitTable& size_units() {
  static const UnitTable table = [] {
    UnitTable t;
    add_prefixed(t, "b", 0.125, true, false);
    add_prefixed(t, "b", 0.125, false, false);
    add_prefixed(t, "B", 1.0, true, false);
    add_prefixed(t, "B", 1.0, false, false);
    return t;
  }();
  return table;
}

const UnitTable& time_units() {
  static const UnitTable table = {{"w", 7 * 24 * 60 * 60}, {"d", 24 * 60 * 60}, {"h", 60 * 60}, {"m", 60},
                                  {"s", 1.0},             {"ms", 1e-3},        {"us", 1e-6},    {"ns", 1e-9},
                                  {"ps", 1e-12}};
  return table;
}

const Unit* find_unit(const UnitTable& table, std::string_view name) {
  for (const Unit& unit : table)
    if (unit.name == name) return &unit;
  return nullptr;
}

// surf_parse_get_value_with_unit: strtod, then the rest of the text is the unit, or the default one.
std::optional<double> parse_with_unit(std::string_view text, const UnitTable& table, std::string_view default_unit) {
  const std::string copy(text);  // strtod needs the terminating NUL
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(copy.c_str(), &end);
  if (errno == ERANGE || end == copy.c_str()) return std::nullopt;
  const std::string_view unit_name = *end == '\0' ? default_unit : std::string_view(end);
  const Unit* unit = find_unit(table, unit_name);
  if (!unit) return std::nullopt;
  return number * unit->scale;
}

// In the largest unit in which the value is at least 1, to 15 significant digits: "500ns" rather
// than the "499.99999999999994ns" an exact round trip would need (SimGrid reads "500ns" one ulp away
// from 0.5e-6, which no simulated time can tell).
std::string format_in(double value, const std::vector<Unit>& largest_first, std::string_view base) {
  for (const Unit& unit : largest_first)
    if (std::abs(value / unit.scale) >= 1) return fmt::format("{:.15g}{}", value / unit.scale, unit.name);
  return fmt::format("{:.15g}{}", value, base);
}

const Unit& unit_named(const UnitTable& table, std::string_view name) { return *find_unit(table, name); }

}  // namespace

std::optional<double> parse_speed(std::string_view text) { return parse_with_unit(text, speed_units(), "f"); }

std::optional<double> parse_bandwidth(std::string_view text) {
  return parse_with_unit(text, bandwidth_units(), "Bps");
}

std::optional<double> parse_size(std::string_view text) { return parse_with_unit(text, size_units(), "B"); }

std::optional<double> parse_time(std::string_view text) { return parse_with_unit(text, time_units(), "s"); }

std::string format_speed(double flops) {
  static const std::vector<Unit> units = [] {
    std::vector<Unit> u;
    for (const char* name : {"Pf", "Tf", "Gf", "Mf", "kf", "f"}) u.push_back(unit_named(speed_units(), name));
    return u;
  }();
  return format_in(flops, units, "f");
}

std::string format_bandwidth(double bytes_per_second) {
  static const std::vector<Unit> units = [] {
    std::vector<Unit> u;
    for (const char* name : {"TBps", "GBps", "MBps", "kBps", "Bps"}) u.push_back(unit_named(bandwidth_units(), name));
    return u;
  }();
  return format_in(bytes_per_second, units, "Bps");
}

std::string format_time(double seconds) {
  if (seconds == 0) return "0s";
  static const std::vector<Unit> units = [] {
    std::vector<Unit> u;
    for (const char* name : {"s", "ms", "us", "ns", "ps"}) u.push_back(unit_named(time_units(), name));
    return u;
  }();
  return format_in(seconds, units, "s");
}

}  // namespace pipegrid::platform
