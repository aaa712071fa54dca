#include "sim/platform/perturb.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <pugixml.hpp>
#include <set>
#include <sstream>

#include "common/input_error.h"
#include "sim/platform/platform_reader.h"

namespace pipegrid::platform {

namespace {

using Kind = Perturbation::Kind;

std::string_view flag_of(Kind kind) {
  switch (kind) {
    case Kind::SlowGpu: return "--slow-gpu";
    case Kind::DegradeLink: return "--degrade-link";
    case Kind::Fail: return "--fail";
  }
  return "?";
}

std::optional<double> number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Dates as SimGrid reads them back exactly.
std::string date(double seconds) { return fmt::format("{}", seconds); }

// `before` until `from`, then `after`.
std::string step_profile(double before, double from, double after) {
  return from > 0 ? fmt::format("0 {}\n{} {}\n", date(before), date(from), date(after)) : fmt::format("0 {}\n", date(after));
}

// The <host> or <link> element that declares `id`. A resource that a <cluster> (or another element
// SimGrid expands) makes has none to carry the profile attribute.
pugi::xml_node element_by_id(const pugi::xml_document& doc, const char* element, const std::string& id,
                             std::string_view flag) {
  for (const pugi::xpath_node& found : doc.select_nodes(fmt::format("//{}[@id]", element).c_str()))
    if (found.node().attribute("id").value() == id) return found.node();
  throw InputError(fmt::format("{} {}: no <{} id=\"{}\"> element to give the profile to (perturb edits declared "
                               "hosts and links, not those a <cluster> makes)",
                               flag, id, element, id));
}

class Editor {
 public:
  Editor(const std::string& path) : path_(path), facts_(read_platform(path)) {
    if (!doc_.load_string(read_text(path).c_str(), pugi::parse_default | pugi::parse_declaration | pugi::parse_doctype |
                                                       pugi::parse_comments))
      throw InputError(fmt::format("{}: cannot be read as XML", path));
    copy_existing_profiles();
  }

  void apply(const Perturbation& p) {
    if (!done_.emplace(p.kind, p.resource).second)
      throw InputError(fmt::format("{} {}: given twice", flag_of(p.kind), p.resource));
    switch (p.kind) {
      case Kind::SlowGpu: slow_gpu(p); break;
      case Kind::DegradeLink: degrade_link(p); break;
      case Kind::Fail: fail(p); break;
    }
  }

  PerturbedPlatform result() {
    // The original's own declaration is kept (it was parsed); one is written only for a file without:
    // two would make the file ill-formed for every XML tool but SimGrid.
    const bool declared = doc_.first_child().type() == pugi::node_declaration;
    std::ostringstream xml;
    doc_.save(xml, "  ", pugi::format_default | pugi::format_no_declaration);
    out_.xml = (declared ? "" : "<?xml version='1.0'?>\n") + xml.str();
    return std::move(out_);
  }

 private:
  // A profile the original names relatively is found beside it: the copy gets one beside it too.
  void copy_existing_profiles() {
    for (const char* attribute : {"speed_file", "availability_file", "state_file", "bandwidth_file", "latency_file", "file"})
      for (const pugi::xpath_node& found : doc_.select_nodes(fmt::format("//*[@{}]", attribute).c_str())) {
        const std::string name = found.node().attribute(attribute).value();
        if (name.find("..") != std::string::npos)
          throw InputError(fmt::format("{}: profile {} leaves the platform's folder; perturb copies the profiles "
                                       "beside the new platform file",
                                       path_, name));
        const auto beside = std::filesystem::path(path_).parent_path() / name;
        out_.files.emplace_back(name, read_text(std::filesystem::exists(name) ? name : beside.string()));
      }
  }

  std::string add_profile(const std::string& resource, std::string_view what, std::string content) {
    const std::string name = fmt::format("perturb-{}-{}.txt", resource, what);
    out_.files.emplace_back(name, std::move(content));
    return name;
  }

  // The text of a profile file to write, by the name the XML gives it.
  std::string file_text(std::string_view name) const {
    for (const auto& [file, text] : out_.files)
      if (file == name) return text;
    return "";
  }

  // A profile file no element names any longer (a split link's) is not written.
  void drop_unused(const std::string& name) {
    std::erase_if(out_.files, [&](const auto& file) { return file.first == name; });
  }

  void refuse_second(const pugi::xml_node& node, const Perturbation& p, std::initializer_list<const char*> attributes) {
    for (const char* attribute : attributes)
      if (!node.attribute(attribute).empty())
        throw InputError(fmt::format("{} {}: it has a {} already", flag_of(p.kind), p.resource, attribute));
  }

  void slow_gpu(const Perturbation& p) {
    const GpuHost* gpu = facts_.find_gpu(p.resource);
    if (!gpu) throw InputError(fmt::format("--slow-gpu {}: no GPU host of that name in {}", p.resource, path_));
    pugi::xml_node host = element_by_id(doc_, "host", p.resource, flag_of(p.kind));
    refuse_second(host, p, {"speed_file", "availability_file"});
    if (facts_.has_profile(p.resource, ProfileOf::HostSpeed))
      throw InputError(fmt::format("--slow-gpu {}: a <trace_connect> gives it a speed profile already", p.resource));
    // SimGrid reads a host's speed profile as a factor of its declared speed.
    host.append_attribute("speed_file") =
        add_profile(p.resource, "speed", fmt::format("# pipegrid platform perturb --slow-gpu: {} of its speed from t={} s\n"
                                                     "{}",
                                                     p.factor, date(p.from), step_profile(1, p.from, p.factor)))
            .c_str();
    out_.notes.push_back(fmt::format("GPU {} at {} of its {:.6g} flop/s from t={} s", p.resource, p.factor, gpu->speed,
                                     date(p.from)));
  }

  void degrade_link(const Perturbation& p) {
    const LinkFacts* link = facts_.find_link(p.resource);
    if (!link) throw InputError(fmt::format("--degrade-link {}: no link of that name in {}", p.resource, path_));
    pugi::xml_node node = element_by_id(doc_, "link", p.resource, flag_of(p.kind));
    refuse_second(node, p, {"bandwidth_file"});
    // SimGrid 3.32 reads a link's bandwidth profile in bytes/s, not as a factor (NetworkCm02Link::apply_event).
    const double bandwidth = link->bandwidth * p.factor;
    node.append_attribute("bandwidth_file") =
        add_profile(p.resource, "bandwidth",
                    fmt::format("# pipegrid platform perturb --degrade-link: {} of its bandwidth from t={} s\n"
                                "{}",
                                p.factor, date(p.from), step_profile(link->bandwidth, p.from, bandwidth)))
            .c_str();
    out_.notes.push_back(fmt::format("link {} at {:.6g} bytes/s ({} of {:.6g}) from t={} s", p.resource, bandwidth,
                                     p.factor, link->bandwidth, date(p.from)));
  }

  std::string state_profile(const Perturbation& p, const std::string& resource) {
    std::string text = fmt::format("# pipegrid platform perturb --fail: off from t={} s{}\n", date(p.from),
                                   p.until ? fmt::format(", on again at t={} s", date(*p.until)) : "");
    text += p.from > 0 ? fmt::format("0 1\n{} 0\n", date(p.from)) : "0 0\n";
    if (p.until) text += fmt::format("{} 1\n", date(*p.until));
    return add_profile(resource, "state", text);
  }

  void fail(const Perturbation& p) {
    const std::string when =
        fmt::format("off from t={} s{}", date(p.from), p.until ? fmt::format(" to t={} s", date(*p.until)) : "");
    if (facts_.has_host(p.resource)) {
      pugi::xml_node host = element_by_id(doc_, "host", p.resource, flag_of(p.kind));
      refuse_second(host, p, {"state_file"});
      if (facts_.has_profile(p.resource, ProfileOf::HostState))
        throw InputError(fmt::format("--fail {}: a <trace_connect> gives it a state profile already", p.resource));
      host.append_attribute("state_file") = state_profile(p, p.resource).c_str();
      out_.notes.push_back(fmt::format("host {} {}", p.resource, when));
      return;
    }
    const LinkFacts* link = facts_.find_link(p.resource);
    if (!link) throw InputError(fmt::format("--fail {}: no host or link of that name in {}", p.resource, path_));
    pugi::xml_node node = element_by_id(doc_, "link", p.resource, flag_of(p.kind));
    refuse_second(node, p, {"state_file"});
    if (link->sharing_policy != "SPLITDUPLEX") {
      node.append_attribute("state_file") = state_profile(p, p.resource).c_str();
      out_.notes.push_back(fmt::format("link {} {}", p.resource, when));
      return;
    }
    split_duplex(node, p);
    out_.notes.push_back(fmt::format("link {} {}, as the SHARED links {}_UP and {}_DOWN SimGrid makes of a SPLITDUPLEX "
                                     "link (SimGrid 3.32 cannot turn a SPLITDUPLEX link off)",
                                     p.resource, when, p.resource, p.resource));
  }

  // SimGrid's SPLITDUPLEX link NAME is two SHARED links NAME_UP and NAME_DOWN of its bandwidth and
  // latency (SplitDuplexLinkImpl): declared as such, each can carry the state_file.
  void split_duplex(pugi::xml_node link, const Perturbation& p) {
    const std::string& name = p.resource;
    for (const char* direction : {"_UP", "_DOWN"})
      if (facts_.find_link(name + direction) || facts_.has_host(name + direction))
        throw InputError(fmt::format("--fail {}: {}{} is taken, and SimGrid names a SPLITDUPLEX link's directions so",
                                     name, name, direction));
    for (const pugi::xpath_node& found : doc_.select_nodes("//zoneRoute/link_ctn | //ASroute/link_ctn"))
      if (found.node().attribute("id").value() == name)
        throw InputError(fmt::format("--fail {}: a zoneRoute crosses it; perturb splits links of <route>s only", name));
    pugi::xml_node parent = link.parent();
    for (const char* direction : {"_DOWN", "_UP"}) {
      pugi::xml_node copy = parent.insert_copy_after(link, link);
      copy.attribute("id") = (name + direction).c_str();
      copy.attribute("sharing_policy") = "SHARED";
      // SimGrid 3.32 refuses one profile file for two resources: each direction gets its own, of the
      // state and of the bandwidth (a --degrade-link of the same link, or the file's own profile).
      copy.append_attribute("state_file") = state_profile(p, name + direction).c_str();
      if (pugi::xml_attribute bandwidth = copy.attribute("bandwidth_file"))
        bandwidth = add_profile(name + direction, "bandwidth", file_text(bandwidth.value())).c_str();
    }
    drop_unused(link.attribute("bandwidth_file").value());
    parent.remove_child(link);
    std::vector<pugi::xml_node> routes;
    for (const pugi::xpath_node& found : doc_.select_nodes("//route"))
      for (const pugi::xml_node& ctn : found.node().children("link_ctn"))
        if (ctn.attribute("id").value() == name) {
          routes.push_back(found.node());
          break;
        }
    for (pugi::xml_node route : routes) {
      const std::string symmetrical = route.attribute("symmetrical").as_string("YES");
      if (symmetrical == "YES" || symmetrical == "yes") {
        // The way back: the links in reverse order, UP and DOWN swapped (SimGrid's symmetrical route).
        pugi::xml_node back = route.parent().insert_child_after("route", route);
        back.append_attribute("src") = route.attribute("dst").value();
        back.append_attribute("dst") = route.attribute("src").value();
        back.append_attribute("symmetrical") = "NO";
        for (pugi::xml_node ctn = route.last_child(); ctn; ctn = ctn.previous_sibling()) {
          if (std::string_view(ctn.name()) != "link_ctn") continue;
          pugi::xml_node copy = back.append_copy(ctn);
          const std::string_view d = ctn.attribute("direction").value();
          if (d == "UP" || d == "DOWN") copy.attribute("direction") = d == "UP" ? "DOWN" : "UP";
        }
        if (route.attribute("symmetrical")) route.attribute("symmetrical") = "NO";
        else route.append_attribute("symmetrical") = "NO";
        rename_direction(back, name);
      }
      rename_direction(route, name);
    }
  }

  static void rename_direction(pugi::xml_node route, const std::string& name) {
    for (pugi::xml_node ctn : route.children("link_ctn"))
      if (ctn.attribute("id").value() == name) {
        ctn.attribute("id") = fmt::format("{}_{}", name, ctn.attribute("direction").value()).c_str();
        ctn.remove_attribute("direction");
      }
  }

  std::string path_;
  PlatformFacts facts_;
  pugi::xml_document doc_;
  PerturbedPlatform out_;
  std::set<std::pair<Kind, std::string>> done_;
};

}  // namespace

Perturbation parse_perturbation(Kind kind, std::string_view text) {
  const std::string_view flag = flag_of(kind);
  const bool with_factor = kind != Kind::Fail;
  const std::string form = with_factor ? "NAME=FACTOR@T" : "NAME@T or NAME@T..T2";
  const auto bad = [&](const std::string& rule) {
    return InputError(fmt::format("{} {}: {} (expected {}, T in seconds)", flag, text, rule, form));
  };
  Perturbation p;
  p.kind = kind;
  const std::size_t at = text.rfind('@');
  if (at == std::string_view::npos) throw bad("no @T");
  std::string_view name = text.substr(0, at), time = text.substr(at + 1);
  if (with_factor) {
    const std::size_t equals = name.rfind('=');
    if (equals == std::string_view::npos) throw bad("no =FACTOR");
    const auto factor = number(name.substr(equals + 1));
    // A factor above 1 would be a faster GPU or link, not a degraded one; 0 would never end a transfer.
    if (!factor || !(*factor > 0 && *factor <= 1)) throw bad("the factor must be a number in (0, 1]");
    p.factor = *factor;
    name = name.substr(0, equals);
  }
  if (name.empty()) throw bad("no name");
  p.resource = std::string(name);
  std::string_view until;
  if (const std::size_t dots = time.find(".."); dots != std::string_view::npos) {
    if (with_factor) throw bad("a degradation lasts to the end; only --fail takes T..T2");
    until = time.substr(dots + 2);
    time = time.substr(0, dots);
  }
  const auto from = number(time);
  if (!from || *from < 0) throw bad("T must be a number of seconds, not negative");
  p.from = *from;
  if (!until.empty()) {
    const auto back = number(until);
    if (!back || !(*back > *from)) throw bad("T2 must be a number of seconds after T");
    p.until = *back;
  }
  return p;
}

PerturbedPlatform perturb_platform(const std::string& path, const std::vector<Perturbation>& perturbations) {
  if (perturbations.empty()) throw InputError("platform perturb: give at least one --slow-gpu, --degrade-link or --fail");
  Editor editor(path);
  // A link is degraded before it fails: failing a SPLITDUPLEX link replaces it by its two directions,
  // which then carry its bandwidth profile each.
  std::vector<Perturbation> in_order = perturbations;
  std::stable_sort(in_order.begin(), in_order.end(),
                   [](const Perturbation& a, const Perturbation& b) { return a.kind < b.kind; });
  for (const Perturbation& p : in_order) editor.apply(p);
  return editor.result();
}

}  // namespace pipegrid::platform
