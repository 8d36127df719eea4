// Groups: ordered sets of processes, named by their rank in the job (the world communicator). A
// group is a plain value: building one is local and needs no communication; a communicator is made
// from one with communicator::create.
//
//   rmpl::group all = world.members();
//   rmpl::group evens = all.include({0, 2, 4});
//   int r = evens.rank();                   // this process's rank in evens, or rmpl::undefined
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rmpl/types.hpp"

namespace rmpl {

/// How two groups (or communicators) relate, as MPI's comparisons report it.
enum class relation : std::uint8_t {
  identical,  ///< the same object (communicators) or the same members in the same order (groups)
  congruent,  ///< communicators only: the same members in the same order, different contexts
  similar,    ///< the same members in another order
  unequal,    ///< different members
};

namespace detail {
int world_rank() noexcept;
[[noreturn]] void throw_error(errc code, const std::string& message);
}  // namespace detail

class group {
 public:
  group() = default;
  /// The group of these job ranks, in this order (each at most once).
  explicit group(std::vector<int> world_ranks) : members_(std::move(world_ranks)) {
    check_distinct("group");
  }

  int size() const noexcept { return static_cast<int>(members_.size()); }
  /// This process's rank in the group, or rmpl::undefined when it is not a member.
  int rank() const noexcept { return rank_of_world(detail::world_rank()); }
  /// The job rank of member `r`.
  int world_rank(int r) const {
    check_rank(r, "world_rank");
    return members_[static_cast<std::size_t>(r)];
  }
  /// The members' job ranks, in group order.
  std::span<const int> world_ranks() const noexcept { return members_; }

  /// The members at these ranks of this group, in the order given.
  group include(std::span<const int> ranks) const {
    std::vector<int> out;
    out.reserve(ranks.size());
    for (int r : ranks) {
      check_rank(r, "include");
      out.push_back(members_[static_cast<std::size_t>(r)]);
    }
    return group(std::move(out));
  }
  group include(std::initializer_list<int> ranks) const {
    return include(std::span<const int>(ranks.begin(), ranks.size()));
  }
  /// Every member but those at these ranks, in this group's order.
  group exclude(std::span<const int> ranks) const {
    std::vector<bool> drop(members_.size(), false);
    for (int r : ranks) {
      check_rank(r, "exclude");
      drop[static_cast<std::size_t>(r)] = true;
    }
    std::vector<int> out;
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (!drop[i]) out.push_back(members_[i]);
    }
    return group(std::move(out));
  }
  group exclude(std::initializer_list<int> ranks) const {
    return exclude(std::span<const int>(ranks.begin(), ranks.size()));
  }

  /// The members of a, then those of b that are not in a (MPI_Group_union's order).
  friend group set_union(const group& a, const group& b) {
    std::vector<int> out = a.members_;
    for (int w : b.members_) {
      if (!a.contains(w)) out.push_back(w);
    }
    return group(std::move(out));
  }
  /// The members of a that are also in b, in a's order.
  friend group set_intersection(const group& a, const group& b) {
    std::vector<int> out;
    for (int w : a.members_) {
      if (b.contains(w)) out.push_back(w);
    }
    return group(std::move(out));
  }
  /// The members of a that are not in b, in a's order.
  friend group set_difference(const group& a, const group& b) {
    std::vector<int> out;
    for (int w : a.members_) {
      if (!b.contains(w)) out.push_back(w);
    }
    return group(std::move(out));
  }
  /// For each rank of `from`, the rank of the same process in `to` (rmpl::undefined if absent).
  friend std::vector<int> translate_ranks(const group& from, std::span<const int> ranks,
                                          const group& to) {
    std::vector<int> out;
    out.reserve(ranks.size());
    for (int r : ranks) out.push_back(to.rank_of_world(from.world_rank(r)));
    return out;
  }
  friend relation compare(const group& a, const group& b) {
    if (a.members_ == b.members_) return relation::identical;
    if (a.members_.size() != b.members_.size()) return relation::unequal;
    std::vector<int> x = a.members_, y = b.members_;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    return x == y ? relation::similar : relation::unequal;
  }
  friend bool operator==(const group& a, const group& b) noexcept {
    return a.members_ == b.members_;
  }

  /// The rank of job rank `w` in this group, or rmpl::undefined.
  int rank_of_world(int w) const noexcept {
    auto it = std::find(members_.begin(), members_.end(), w);
    return it == members_.end() ? undefined : static_cast<int>(it - members_.begin());
  }
  bool contains(int w) const noexcept { return rank_of_world(w) != undefined; }

 private:
  void check_rank(int r, const char* what) const {
    if (r < 0 || r >= size()) {
      std::string message = "rmpl: group::";
      message.append(what).append(": rank ").append(std::to_string(r));
      message.append(" is outside a group of ").append(std::to_string(size()));
      detail::throw_error(errc::invalid_rank, message);
    }
  }
  void check_distinct(const char* what) const {
    std::vector<int> sorted = members_;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      std::string message = "rmpl: ";
      message.append(what).append(": a process is listed twice");
      detail::throw_error(errc::invalid_argument, message);
    }
  }

  std::vector<int> members_;
};

}  // namespace rmpl
