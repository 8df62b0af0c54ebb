// A function of time alone, remembered at the two times it was asked last, per thread.
//
// A model's event functions are read one atom at a time, and at one point (t, x) several of
// them may read the same function of t (the PWM servo's setpoint u(t) = u + u_amp sin(u_freq t)
// enters four atoms): kept, it is computed once per point. Two times, because detection reads
// the atoms of an event at both ends of its location bracket in turn (t_a, t_b, t_a, ...): one
// kept time would compute f again at each change. The values are kept per thread and per memo
// (a serial number, never an address that a later memo could reuse), keyed on t compared
// exactly, so a model shared by threads stays safe and every reading is the value f(t) itself.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace hysim {

template <class S, class F>
class TimeMemo {
 public:
  explicit TimeMemo(F f) : f_(std::move(f)), serial_(next_serial()) {}

  S operator()(S t) const {
    thread_local Slot slots[2];
    thread_local int last = 0;  // the slot read or written last
    if (slots[last].serial == serial_ && slots[last].t == t) return slots[last].value;
    last = 1 - last;
    Slot& other = slots[last];
    if (!(other.serial == serial_ && other.t == t)) other = {serial_, t, f_(t)};  // the older one goes
    return other.value;
  }

 private:
  struct Slot {
    std::uint64_t serial = 0;  // 0: no memo yet
    S t{}, value{};
  };

  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }

  F f_;
  std::uint64_t serial_;
};

}  // namespace hysim
