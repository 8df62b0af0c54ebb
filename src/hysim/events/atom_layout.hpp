// Where each atom of a model sits in detection's tables (events/detection.hpp). Built once,
// with the model; read-only afterwards.
//
//   in_mode(m, k, i)  atom i of transition k of mode m, numbered across all of m's guards
//                     in declaration order: the re-arming masks keep one entry per number
//                     (events/rearm.hpp)
//   slot(m, k, i)     model-wide: one slot per atom, or one per event shared by several
//                     atoms in any modes (Atom::shared): atoms of one event have the same e
//                     and rate, so the cache keeps one value for them all (events/event_cache.hpp)
#pragma once

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "hysim/core/model.hpp"

namespace hysim {

class AtomLayout {
 public:
  template <class S>
  explicit AtomLayout(const Model<S>& model) {
    first_.resize(model.modes.size());
    slots_of_.resize(model.modes.size());
    std::unordered_map<const void*, std::size_t> shared_slots;
    for (std::size_t m = 0; m < model.modes.size(); ++m) {
      std::size_t in_mode = 0;
      for (const auto& tr : model.modes[m].transitions) {
        first_[m].push_back(in_mode);
        in_mode += tr.guard.atoms().size();
        for (const auto& atom : tr.guard.atoms()) {
          if (!atom.shared) {
            slots_of_[m].push_back(slots_++);
          } else {
            const auto [at, added] = shared_slots.try_emplace(atom.shared.get(), slots_);
            slots_of_[m].push_back(at->second);
            slots_ += added ? 1 : 0;
          }
        }
      }
      most_in_mode_ = std::max(most_in_mode_, in_mode);
    }
  }

  std::size_t in_mode(int mode, std::size_t k, std::size_t i) const {
    return first_[static_cast<std::size_t>(mode)][k] + i;
  }
  std::size_t slot(int mode, std::size_t k, std::size_t i) const {
    const auto m = static_cast<std::size_t>(mode);
    return slots_of_[m][first_[m][k] + i];
  }

  std::size_t slots() const { return slots_; }                // value slots in the model
  std::size_t most_in_mode() const { return most_in_mode_; }  // most atoms in one mode's guards

 private:
  std::vector<std::vector<std::size_t>> first_;     // [mode][transition]: its first atom's in_mode
  std::vector<std::vector<std::size_t>> slots_of_;  // [mode][in_mode]: the atom's slot
  std::size_t slots_ = 0, most_in_mode_ = 0;
};

}  // namespace hysim
