// The reader's <config> and time-varying profiles (<trace>, <trace_connect>, a host's or link's
// profile files): checked as SimGrid 3.32 reads them.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>

#include "sim/platform/platform_reader_parts.h"
#include "sim/platform/simgrid_config.h"

namespace pipegrid::platform {

void Reader::read_config(const pugi::xml_node& config) {
  for (const pugi::xml_node& prop : config.children()) {
    if (std::string_view(prop.name()) != "prop") refuse(prop);
    const std::string key = prop.attribute("id").value(), value = prop.attribute("value").value();
    if (const std::string rule = config_rule(key, value); !rule.empty())
      source_.fail(prop, fmt::format("<config> {} = {}: {}", key, value, rule));
    facts_.config.emplace_back(key, value);
  }
}

// A profile file named by an attribute: found where SimGrid looks, and well-formed; its text.
std::string Reader::read_profile_file(const pugi::xml_node& node, const std::string& what, const char* attribute,
                                      ProfileKind kind) {
  const std::string name = node.attribute(attribute).value();
  if (name.empty()) source_.fail(node, fmt::format("{}: {} names no file", what, attribute));
  if (std::filesystem::path(name).is_absolute())
    source_.fail(node, fmt::format("{}: {} {}: SimGrid 3.32 cannot open a profile by its absolute path; name it "
                                   "relative to the platform file",
                                   what, attribute, name));
  const std::optional<std::string> found = locate_profile(name, source_.path());
  if (!found)
    source_.fail(node, fmt::format("{}: {} {}: no such file in the working directory or beside the platform file",
                                   what, attribute, name));
  // SimGrid 3.32 keeps its profiles by file name ("Refusing to define trace … twice").
  if (std::find(facts_.profile_files.begin(), facts_.profile_files.end(), *found) != facts_.profile_files.end())
    source_.fail(node, fmt::format("{}: {} {}: SimGrid 3.32 reads a profile file for one resource only; give each "
                                   "its own copy",
                                   what, attribute, name));
  std::ifstream in(*found, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (const std::string rule = profile_rule(text.str(), kind); !rule.empty())
    source_.fail(node, fmt::format("{}: {} {}: {}", what, attribute, name, rule));
  facts_.profile_files.push_back(*found);
  return text.str();
}

// <trace id periodicity [file]>content</trace>: read as SimGrid reads it, checked for form here
// and for its values where it is connected (read_trace_connect). A periodicity above 0 loops it.
void Reader::read_trace(const pugi::xml_node& node) {
  const std::string id = id_of(node), what = fmt::format("trace {}", id);
  if (node.attribute("periodicity").empty()) source_.fail(node, what + ": needs a periodicity");
  std::string content = node.child_value();
  if (!node.attribute("file").empty()) {
    content = read_profile_file(node, what, "file", ProfileKind::Any);
  } else {
    if (content.find_first_not_of(" \t\r\n") == std::string::npos)
      source_.fail(node, what + ": has neither content nor a file");
    if (const std::string rule = profile_rule(content, ProfileKind::Any); !rule.empty())
      source_.fail(node, fmt::format("{}: {}", what, rule));
  }
  if (node.attribute("periodicity").as_double() > 0)
    content = fmt::format("PERIODICITY {}\n{}", node.attribute("periodicity").value(), content);
  traces_[id] = std::move(content);
}

// A host's speed or state from a <trace>. SimGrid 3.32 connects traces once the whole file is read,
// when its links are sealed already: a link's profile must be an attribute of the link.
void Reader::read_trace_connect(const pugi::xml_node& node) {
  const std::string kind = node.attribute("kind").as_string("HOST_AVAIL");
  const std::string what = fmt::format("<trace_connect kind=\"{}\">", kind);
  if (kind == "LINK_AVAIL" || kind == "BANDWIDTH" || kind == "LATENCY")
    source_.fail(node, fmt::format("{}: SimGrid 3.32 cannot connect a trace to a link (the link is sealed first); "
                                   "{}",
                                   what, kind == "LINK_AVAIL"  ? "give the link a state_file"
                                         : kind == "BANDWIDTH" ? "give the link a bandwidth_file"
                                                               : "and pipegrid refuses latency profiles"));
  if (kind != "SPEED" && kind != "HOST_AVAIL")
    source_.fail(node, fmt::format("{}: kind must be SPEED, HOST_AVAIL, BANDWIDTH, LATENCY or LINK_AVAIL", what));
  const std::string trace = node.attribute("trace").value(), host = node.attribute("element").value();
  const auto it = traces_.find(trace);
  if (it == traces_.end()) source_.fail(node, fmt::format("{}: no <trace> {} before it", what, trace));
  const bool speed = kind == "SPEED";
  if (const std::string rule = profile_rule(it->second, speed ? ProfileKind::Speed : ProfileKind::State); !rule.empty())
    source_.fail(node, fmt::format("{}: trace {}: {}", what, trace, rule));
  add_profile(node, host, speed ? ProfileOf::HostSpeed : ProfileOf::HostState, it->second, "trace " + trace);
  connected_hosts_.emplace_back(node, host);
}

// SimGrid 3.32 asserts on a second profile of one kind on one resource.
void Reader::add_profile(const pugi::xml_node& node, const std::string& resource, ProfileOf of, std::string text,
                         std::string source) {
  for (const ResourceProfile& other : facts_.resource_profiles)
    if (other.resource == resource && other.of == of)
      source_.fail(node, fmt::format("{}: a second {} profile (the first at line {})", resource,
                                     of == ProfileOf::HostSpeed       ? "speed"
                                     : of == ProfileOf::LinkBandwidth ? "bandwidth"
                                                                      : "state",
                                     other.line));
  facts_.resource_profiles.push_back({resource, of, std::move(text), source_.line_of(node), std::move(source)});
}

}  // namespace pipegrid::platform
