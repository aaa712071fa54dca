// A platform file's text and where each line starts, to turn pugixml's offsets into line numbers,
// and the one-line error "FILE:LINE: rule" of the element at fault.
#pragma once

#include <algorithm>
#include <fmt/format.h>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "common/input_error.h"

namespace pipegrid::platform {

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

}  // namespace pipegrid::platform
