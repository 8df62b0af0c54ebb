// One-sided event location by bisection on the dense output (003, Algorithm 1; 004's
// one-sidedness requirement; DESIGN.md section 4).
//
// Given a bracket [t_a, t_b] with the guard not fired at t_a and fired at t_b, halve it
// while keeping that invariant until t_b - t_a <= tolerance, or until no representable time
// lies strictly between t_a and t_b (a tolerance of 0 asks for exactly that). The event is
// then placed at t_a: the state handed to the reset, x(t_a), never violates the mode being
// left. Each halving costs one dense-output evaluation and the guard evaluations, never a
// field evaluation.
#pragma once

#include <cstdint>

namespace hysim {

template <class S>
struct Bracket {
  S t_a;  // guard not fired
  S t_b;  // guard fired
};

// fired(t) evaluates the guard on the dense output at t. iterations counts the halvings.
template <class S, class Fired>
Bracket<S> bisect(S t_a, S t_b, const S& tolerance, Fired&& fired, std::int64_t* iterations) {
  while (t_b - t_a > tolerance) {
    const S mid = t_a + (t_b - t_a) / 2;
    if (!(mid > t_a && mid < t_b)) break;  // t_a and t_b are adjacent representable times
    ++*iterations;
    if (fired(mid)) {
      t_b = mid;
    } else {
      t_a = mid;
    }
  }
  return {t_a, t_b};
}

}  // namespace hysim
