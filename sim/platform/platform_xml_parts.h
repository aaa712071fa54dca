// The pieces both layouts of a generated platform share (platform_xml.cc: one flat zone;
// node_zones_xml.cc: a zone per node): the text builder, link elements, the file's preamble and one
// node's hosts and links.
#pragma once

#include <fmt/format.h>
#include <iterator>
#include <string>
#include <string_view>

#include "sim/platform/cluster_spec.h"

namespace pipegrid::platform {

/// Lines of XML, each indented two spaces per depth.
class XmlText {
 public:
  template <typename... Args>
  void line(int depth, fmt::format_string<Args...> format, Args&&... args) {
    text_.append(static_cast<std::size_t>(2 * depth), ' ');
    fmt::format_to(std::back_inserter(text_), format, std::forward<Args>(args)...);
    text_ += '\n';
  }
  std::string& text() { return text_; }

 private:
  std::string text_;
};

std::string link_element(const std::string& id, double bandwidth, double latency, const char* policy);
std::string up(const std::string& link);    // <link_ctn id="LINK" direction="UP"/>
std::string down(const std::string& link);  // … direction="DOWN"

/// The XML declaration, the comment giving the numbers, <platform>, <config>, and the cluster zone opened
/// with `routing` and its generated_by property (the gen command).
void write_preamble(XmlText& xml, const ClusterSpec& spec, std::string_view routing);
/// Node `node`'s GPU hosts, its NVSwitch router and its links, at `depth`.
void write_node(XmlText& xml, const ClusterSpec& spec, int node, int depth);

/// The per-node layout (ZoneLayout::PerNode).
std::string node_zones_xml(const ClusterSpec& spec);

}  // namespace pipegrid::platform
