#include "sim/platform/platform_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <set>
#include <sstream>

#include "common/input_error.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/simgrid_config.h"
#include "sim/platform/units.h"

namespace pipegrid::platform {

namespace {

// SimGrid's default network model when a file does not choose one.
constexpr const char* kSimGridDefaultModel = "LV08";

// The file's text and where each line starts, to turn pugixml's offsets into line numbers.
class SourceText {
 public:
  SourceText(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
  const std::string& text() const { return text_; }
  const std::string& path() const { return path_; }
  int line_at(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const auto after = std::upper_bound(line_starts_.begin(), line_starts_.end(), static_cast<std::size_t>(offset));
    return static_cast<int>(after - line_starts_.begin());
  }
  int line_of(const pugi::xml_node& node) const { return line_at(node.offset_debug()); }
  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& rule) const {
    throw InputError(fmt::format("{}:{}: {}", path_, line_of(node), rule));
  }

 private:
  std::string path_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Reads the zones' elements into facts, remembering the route elements for a second pass: a route
// may only be checked once every netpoint and link is known.
class Reader {
 public:
  Reader(const SourceText& source, PlatformFacts& facts) : source_(source), facts_(facts) {}

  void read_platform(const pugi::xml_node& platform) {
    bool zones_seen = false;
    for (const pugi::xml_node& child : platform.children()) {
      const std::string_view name = child.name();
      if (name == "config") {
        // SimGrid's parser refuses a <config> once the platform has begun.
        if (zones_seen) source_.fail(child, "<config> must come before the zones");
        read_config(child);
      } else if (name == "zone" || name == "AS") {
        zones_seen = true;
        read_zone(child);
      } else if (name == "trace") {
        read_trace(child);
      } else if (name == "trace_connect") {
        read_trace_connect(child);
      } else {
        refuse(child);
      }
    }
    for (const auto& [route, zone] : route_nodes_) read_route(route, zone);
    for (const auto& [node, host] : connected_hosts_)
      if (!netpoint_lines_.contains(host) ||
          std::find(facts_.routers.begin(), facts_.routers.end(), host) != facts_.routers.end())
        source_.fail(node, fmt::format("<trace_connect kind=\"{}\">: no host {}", node.attribute("kind").value(), host));
  }

 private:
  void read_config(const pugi::xml_node& config) {
    for (const pugi::xml_node& prop : config.children()) {
      if (std::string_view(prop.name()) != "prop") refuse(prop);
      const std::string key = prop.attribute("id").value(), value = prop.attribute("value").value();
      if (const std::string rule = config_rule(key, value); !rule.empty())
        source_.fail(prop, fmt::format("<config> {} = {}: {}", key, value, rule));
      facts_.config.emplace_back(key, value);
    }
  }

  // The routings SimGrid 3.32 accepts (src/surf/sg_platf.cpp, compared without case), and the
  // four that pipegrid reads: zones of hosts, routers, links and routes between them.
  void check_routing(const pugi::xml_node& zone) {
    const std::string routing = zone.attribute("routing").value();
    const auto is = [&](std::string_view name) {
      return routing.size() == name.size() &&
             std::equal(routing.begin(), routing.end(), name.begin(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
    };
    for (std::string_view read : {"Full", "Floyd", "Dijkstra", "DijkstraCache"})
      if (is(read)) return;
    for (std::string_view other : {"Cluster", "None", "Vivaldi", "Wifi"})
      if (is(other))
        source_.fail(zone, fmt::format("zone {}: routing {} is SimGrid's, but pipegrid reads only zones routed Full, "
                                       "Floyd, Dijkstra or DijkstraCache",
                                       zone.attribute("id").value(), routing));
    source_.fail(zone, fmt::format("zone {}: routing must be Full, Floyd, Dijkstra or DijkstraCache, got {}",
                                   zone.attribute("id").value(), routing.empty() ? "nothing" : routing));
  }

  void read_zone(const pugi::xml_node& zone) {
    check_routing(zone);
    if (facts_.routing.empty()) facts_.routing = zone.attribute("routing").value();
    const int index = static_cast<int>(facts_.zones.size());
    facts_.zones.push_back({zone.attribute("id").value(), zone.attribute("routing").value(), source_.line_of(zone)});
    for (const pugi::xml_node& child : zone.children()) {
      const std::string_view name = child.name();
      if (name == "zone" || name == "AS") read_zone(child);
      else if (name == "host") read_host(child, index);
      else if (name == "router") add_netpoint(child, index);
      else if (name == "link") read_link(child);
      else if (name == "route") route_nodes_.emplace_back(child, index);
      else if (name == "trace") read_trace(child);
      else if (name == "trace_connect") read_trace_connect(child);
      else if (name != "prop") refuse(child);
    }
  }

  // A profile file named by an attribute: found where SimGrid looks, and well-formed; its text.
  std::string read_profile_file(const pugi::xml_node& node, const std::string& what, const char* attribute, ProfileKind kind) {
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
  void read_trace(const pugi::xml_node& node) {
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
  void read_trace_connect(const pugi::xml_node& node) {
    const std::string kind = node.attribute("kind").as_string("HOST_AVAIL");
    const std::string what = fmt::format("<trace_connect kind=\"{}\">", kind);
    if (kind == "LINK_AVAIL" || kind == "BANDWIDTH" || kind == "LATENCY")
      source_.fail(node, fmt::format("{}: SimGrid 3.32 cannot connect a trace to a link (the link is sealed first); "
                                     "give the link a {}",
                                     what, kind == "LINK_AVAIL" ? "state_file" : "bandwidth_file or latency_file"));
    if (kind != "SPEED" && kind != "HOST_AVAIL")
      source_.fail(node, fmt::format("{}: kind must be SPEED, HOST_AVAIL, BANDWIDTH, LATENCY or LINK_AVAIL", what));
    const std::string trace = node.attribute("trace").value(), host = node.attribute("element").value();
    const auto it = traces_.find(trace);
    if (it == traces_.end()) source_.fail(node, fmt::format("{}: no <trace> {} before it", what, trace));
    const bool speed = kind == "SPEED";
    if (const std::string rule = profile_rule(it->second, speed ? ProfileKind::Speed : ProfileKind::State); !rule.empty())
      source_.fail(node, fmt::format("{}: trace {}: {}", what, trace, rule));
    add_profile(node, host, speed ? ProfileOf::HostSpeed : ProfileOf::HostState, it->second);
    connected_hosts_.emplace_back(node, host);
  }

  // SimGrid 3.32 asserts on a second profile of one kind on one resource.
  void add_profile(const pugi::xml_node& node, const std::string& resource, ProfileOf of, std::string text) {
    for (const ResourceProfile& other : facts_.resource_profiles)
      if (other.resource == resource && other.of == of)
        source_.fail(node, fmt::format("{}: a second {} profile (the first at line {})", resource,
                                       of == ProfileOf::HostSpeed ? "speed" : "state", other.line));
    facts_.resource_profiles.push_back({resource, of, std::move(text), source_.line_of(node)});
  }

  [[noreturn]] void refuse(const pugi::xml_node& node) const {
    source_.fail(node, fmt::format("<{}> is not read by pipegrid: declare hosts, routers, links and routes "
                                   "in zones (platforms/README.md)",
                                   node.name()));
  }

  std::string id_of(const pugi::xml_node& node) const {
    const std::string id = node.attribute("id").value();
    if (id.empty()) source_.fail(node, fmt::format("<{}> needs an id", node.name()));
    return id;
  }

  std::string add_netpoint(const pugi::xml_node& node, int zone) {
    const std::string id = id_of(node);
    const auto [first, added] = netpoint_lines_.emplace(id, source_.line_of(node));
    if (!added) source_.fail(node, fmt::format("duplicate id {}, first declared at line {}", id, first->second));
    if (std::string_view(node.name()) == "router") facts_.routers.push_back(id);
    facts_.zone_of_netpoint.emplace(id, zone);
    return id;
  }

  void read_host(const pugi::xml_node& node, int zone) {
    const std::string id = add_netpoint(node, zone);
    const std::string speed_text = node.attribute("speed").value();
    // Several pstates are "f0, f1, …"; a host starts in pstate 0, and SimGrid reads them all.
    double speed = 0;
    for (std::size_t begin = 0; begin <= speed_text.size();) {
      const std::size_t end = std::min(speed_text.find(',', begin), speed_text.size());
      std::string pstate = speed_text.substr(begin, end - begin);
      pstate.erase(0, pstate.find_first_not_of(' '));
      pstate.erase(pstate.find_last_not_of(' ') + 1);
      const double value =
          positive_quantity(node, fmt::format("host {}: speed", id), speed_text, parse_speed(pstate), "312Tf");
      if (begin == 0) speed = value;
      begin = end + 1;
    }
    // availability_file is SimGrid's old name of speed_file: a factor of the peak speed.
    for (const char* profile : {"speed_file", "availability_file", "state_file"})
      if (!node.attribute(profile).empty()) {
        const bool state = std::string_view(profile) == "state_file";
        add_profile(node, id, state ? ProfileOf::HostState : ProfileOf::HostSpeed,
                    read_profile_file(node, "host " + id, profile, state ? ProfileKind::State : ProfileKind::Speed));
      }
    std::map<std::string, pugi::xml_node> props;
    for (const pugi::xml_node& prop : node.children("prop")) props[prop.attribute("id").value()] = prop;
    if (!props.contains("role") || std::string_view(props["role"].attribute("value").value()) != "gpu") {
      facts_.other_hosts.push_back(id);
      return;
    }
    GpuHost gpu;
    gpu.name = id;
    gpu.speed = speed;
    gpu.line = source_.line_of(node);
    gpu.node = static_cast<int>(integer_prop(node, props, id, "node", "a non-negative integer", 0, 1'000'000'000));
    gpu.gpu = static_cast<int>(integer_prop(node, props, id, "gpu", "a non-negative integer", 0, 1'000'000'000));
    gpu.memory = integer_prop(node, props, id, "memory", "a positive number of bytes", 1, INT64_MAX);
    if (props.contains("gpu_model")) gpu.model = props["gpu_model"].attribute("value").value();
    const auto [first, added] = gpu_slots_.emplace(std::pair(gpu.node, gpu.gpu), id);
    if (!added)
      source_.fail(node, fmt::format("host {}: node {} gpu {} is already host {}", id, gpu.node, gpu.gpu,
                                     first->second));
    facts_.gpus.push_back(std::move(gpu));
  }

  static std::string unreadable(const std::string& what, const std::string& text, const char* examples) {
    return fmt::format("{} must be a number with a SimGrid unit such as {}, got {}", what, examples,
                       text.empty() ? "nothing" : text);
  }

  // A speed or bandwidth: readable (SimGrid's units), then positive and finite.
  double positive_quantity(const pugi::xml_node& node, const std::string& what, const std::string& text,
                           std::optional<double> value, const char* examples) const {
    if (!value) source_.fail(node, unreadable(what, text, examples));
    if (!(*value > 0) || !std::isfinite(*value)) source_.fail(node, fmt::format("{} must be positive, got {}", what, text));
    return *value;
  }

  long long integer_prop(const pugi::xml_node& host, std::map<std::string, pugi::xml_node>& props,
                         const std::string& id, const char* prop, const char* rule, long long min,
                         long long max) const {
    if (!props.contains(prop))
      source_.fail(host, fmt::format("host {}: a GPU host (role gpu) needs property {}", id, prop));
    const std::string text = props[prop].attribute("value").value();
    const std::optional<long long> value = parse_integer(text);
    if (!value || *value < min || *value > max)
      source_.fail(props[prop], fmt::format("host {}: property {} must be {}, got {}", id, prop, rule, text));
    return *value;
  }

  void read_link(const pugi::xml_node& node) {
    LinkFacts link;
    link.name = id_of(node);
    link.line = source_.line_of(node);
    const auto [first, added] = link_lines_.emplace(link.name, link.line);
    if (!added)
      source_.fail(node, fmt::format("duplicate id {}, first declared at line {}", link.name, first->second));
    const std::string bandwidth_text = node.attribute("bandwidth").value();
    link.bandwidth = positive_quantity(node, fmt::format("link {}: bandwidth", link.name), bandwidth_text,
                                       parse_bandwidth(bandwidth_text), "25GBps or 200Gbps");
    const std::string latency_text = node.attribute("latency").as_string("0");
    const std::optional<double> latency = parse_time(latency_text);
    if (!latency) source_.fail(node, unreadable(fmt::format("link {}: latency", link.name), latency_text, "1us or 500ns"));
    if (!(*latency >= 0) || !std::isfinite(*latency))
      source_.fail(node, fmt::format("link {}: latency must not be negative, got {}", link.name, latency_text));
    link.latency = *latency;
    if (!node.attribute("state_file").empty()) {
      // SimGrid 3.32 gives a SPLITDUPLEX link's state event to both directions, which do not know it:
      // xbt_die("Unknown event!") in NetworkCm02Link::apply_event.
      if (std::string_view(node.attribute("sharing_policy").value()) == "SPLITDUPLEX" ||
          std::string_view(node.attribute("sharing_policy").value()) == "FULLDUPLEX")
        source_.fail(node, fmt::format("link {}: state_file: SimGrid 3.32 aborts on the state profile of a SPLITDUPLEX "
                                       "link; give a state_file to SHARED or FATPIPE links",
                                       link.name));
      add_profile(node, link.name, ProfileOf::LinkState,
                  read_profile_file(node, "link " + link.name, "state_file", ProfileKind::State));
    }
    for (const auto& [attribute, kind] : {std::pair{"bandwidth_file", ProfileKind::Bandwidth},
                                          std::pair{"latency_file", ProfileKind::Latency}})
      if (!node.attribute(attribute).empty())
        read_profile_file(node, fmt::format("link {}", link.name), attribute, kind);
    link.sharing_policy = node.attribute("sharing_policy").as_string("SHARED");
    if (link.sharing_policy == "FULLDUPLEX") link.sharing_policy = "SPLITDUPLEX";  // SimGrid's old spelling
    if (link.sharing_policy != "SHARED" && link.sharing_policy != "SPLITDUPLEX" && link.sharing_policy != "FATPIPE")
      source_.fail(node, fmt::format("link {}: sharing_policy must be SHARED, SPLITDUPLEX or FATPIPE, got {}",
                                     link.name, link.sharing_policy));
    facts_.link_index.emplace(link.name, facts_.links.size());
    facts_.links.push_back(std::move(link));
  }

  void read_route(const pugi::xml_node& node, int zone) {
    RouteFacts route;
    route.zone = zone;
    route.src = node.attribute("src").value();
    route.dst = node.attribute("dst").value();
    route.line = source_.line_of(node);
    const std::string what = fmt::format("route {} -> {}", route.src, route.dst);
    for (const std::string& end : {route.src, route.dst})
      if (!netpoint_lines_.contains(end)) source_.fail(node, fmt::format("{}: no host or router {}", what, end));
    for (const std::string& end : {route.src, route.dst})
      if (const int other = facts_.zone_of_netpoint.at(end); other != zone)
        source_.fail(node, fmt::format("{}: {} is in zone {}, not in this route's zone {} (a route joins netpoints of "
                                       "its own zone; pipegrid reads no zone routes)",
                                       what, end, facts_.zones[other].id, facts_.zones[zone].id));
    const std::string symmetrical = node.attribute("symmetrical").as_string("YES");
    route.symmetrical = symmetrical == "YES" || symmetrical == "yes";
    declare_once(node, route.src, route.dst, what);
    if (route.symmetrical) declare_once(node, route.dst, route.src, what);
    for (const pugi::xml_node& ctn : node.children("link_ctn")) {
      LinkUse use{ctn.attribute("id").value(), ctn.attribute("direction").as_string("NONE")};
      const LinkFacts* link = facts_.find_link(use.link);
      if (!link) source_.fail(ctn, fmt::format("{}: no link named {}", what, use.link));
      const bool directed = use.direction == "UP" || use.direction == "DOWN";
      if (link->sharing_policy == "SPLITDUPLEX" && !directed)
        source_.fail(ctn, fmt::format("{}: link {} is SPLITDUPLEX and needs direction UP or DOWN", what, use.link));
      if (link->sharing_policy != "SPLITDUPLEX" && use.direction != "NONE")
        source_.fail(ctn, fmt::format("{}: link {} is {} and has no direction {}", what, use.link,
                                      link->sharing_policy, use.direction));
      route.links.push_back(std::move(use));
    }
    facts_.routes.push_back(std::move(route));
  }

  // SimGrid refuses a second route between the same two netpoints in the same direction.
  void declare_once(const pugi::xml_node& node, const std::string& from, const std::string& to,
                    const std::string& what) {
    const auto [first, added] = route_lines_.emplace(std::pair(from, to), source_.line_of(node));
    if (!added)
      source_.fail(node, fmt::format("{}: a route from {} to {} is already declared at line {}", what, from, to,
                                     first->second));
  }

  const SourceText& source_;
  PlatformFacts& facts_;
  std::vector<std::pair<pugi::xml_node, int>> route_nodes_;  // with their zone
  std::map<std::string, std::string> traces_;                 // <trace> id → its profile text
  std::vector<std::pair<pugi::xml_node, std::string>> connected_hosts_;  // by <trace_connect>, checked at the end
  std::map<std::string, int> netpoint_lines_;
  std::map<std::string, int> link_lines_;
  std::map<std::pair<int, int>, std::string> gpu_slots_;
  std::map<std::pair<std::string, std::string>, int> route_lines_;
};

}  // namespace

const LinkFacts* PlatformFacts::find_link(std::string_view name) const {
  const auto it = link_index.find(std::string(name));
  return it == link_index.end() ? nullptr : &links[it->second];
}

const GpuHost* PlatformFacts::find_gpu(std::string_view name) const {
  const auto it = gpu_index.find(std::string(name));
  return it == gpu_index.end() ? nullptr : &gpus[it->second];
}

bool PlatformFacts::has_profile(std::string_view resource, ProfileOf of) const {
  return std::any_of(resource_profiles.begin(), resource_profiles.end(),
                     [&](const ResourceProfile& p) { return p.resource == resource && p.of == of; });
}

bool PlatformFacts::has_host(std::string_view name) const {
  return find_gpu(name) || std::find(other_hosts.begin(), other_hosts.end(), name) != other_hosts.end();
}

PlatformFacts read_platform(const std::string& path) {
  std::error_code error;
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
    throw InputError(fmt::format("{}: not a regular file (SimGrid reads the platform file a second time)", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return read_platform_text(path, buffer.str());
}

PlatformFacts read_platform_text(const std::string& path, std::string text) {
  const SourceText source(path, std::move(text));

  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_buffer(source.text().data(), source.text().size());
  if (!parsed)
    throw InputError(fmt::format("{}:{}: malformed XML: {}", path, source.line_at(parsed.offset), parsed.description()));
  const pugi::xml_node root = document.document_element();
  const std::string version = root.attribute("version").value();
  if (std::string_view(root.name()) != "platform" || version != "4.1")
    source.fail(root, fmt::format(R"(the root element must be <platform version="4.1">, got <{} version="{}">)",
                                  root.name(), version));

  PlatformFacts facts;
  facts.path = path;
  Reader(source, facts).read_platform(root);
  if (facts.gpus.empty())
    throw InputError(fmt::format(R"({}: no GPU hosts: a GPU is a host with <prop id="role" value="gpu"/>)", path));
  std::sort(facts.gpus.begin(), facts.gpus.end(),
            [](const GpuHost& a, const GpuHost& b) { return std::pair(a.node, a.gpu) < std::pair(b.node, b.gpu); });
  std::set<int> nodes;
  for (std::size_t i = 0; i < facts.gpus.size(); ++i) {
    facts.gpu_index.emplace(facts.gpus[i].name, i);
    nodes.insert(facts.gpus[i].node);
  }
  facts.nodes = static_cast<int>(nodes.size());
  facts.network_model = kSimGridDefaultModel;
  for (const auto& [id, value] : facts.config)
    if (id == "network/model") facts.network_model = value;
  return facts;
}

}  // namespace pipegrid::platform
