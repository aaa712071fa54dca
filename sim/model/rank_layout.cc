#include "sim/model/rank_layout.h"

#include <algorithm>

namespace pipegrid::model {

std::string parse_rank_order(std::string_view order, std::vector<std::string>& dims) {
  const std::string rule = "must order tp, dp and pp (and optionally cp and ep), fastest first, as in tp-cp-ep-dp-pp";
  std::vector<std::string> named;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = order.find('-', begin);
    const std::string_view name =
        order.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    if (std::find(std::begin(kRankDimensions), std::end(kRankDimensions), name) == std::end(kRankDimensions))
      return rule;
    if (std::find(named.begin(), named.end(), name) != named.end()) return "must name each dimension once";
    named.emplace_back(name);
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  for (const char* needed : {"tp", "dp", "pp"})
    if (std::find(named.begin(), named.end(), needed) == named.end()) return rule;
  const auto at = [&](const char* name) { return std::find(named.begin(), named.end(), name); };
  if (at("cp") == named.end()) named.insert(at("tp") + 1, "cp");
  if (at("ep") == named.end()) named.insert(at("dp"), "ep");
  dims = std::move(named);
  return "";
}

RankLayout::RankLayout(std::vector<RankDimension> dims) : dims_(std::move(dims)), size_(1) {
  for (const RankDimension& d : dims_) {
    strides_.push_back(size_);
    size_ *= d.size;
  }
}

int RankLayout::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i].name == name) return static_cast<int>(i);
  return -1;
}

int RankLayout::coordinate(int rank, std::string_view name) const {
  const int i = index_of(name);
  return i < 0 ? 0 : rank / strides_[i] % dims_[i].size;
}

std::vector<int> RankLayout::group(int rank, const std::vector<std::string_view>& names) const {
  // The group's first rank (its coordinates in `names` zeroed), then every combination of them.
  int base = rank;
  std::vector<int> masked;
  for (std::string_view name : names) {
    const int i = index_of(name);
    if (i < 0) continue;
    base -= coordinate(rank, name) * strides_[i];
    masked.push_back(i);
  }
  std::vector<int> members = {base};
  for (int i : masked) {
    std::vector<int> wider;
    for (int c = 0; c < dims_[i].size; ++c)
      for (int m : members) wider.push_back(m + c * strides_[i]);
    members = std::move(wider);
  }
  std::sort(members.begin(), members.end());
  return members;
}

}  // namespace pipegrid::model
