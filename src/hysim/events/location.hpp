// One-sided event location on the dense output (003, Algorithm 1; 004's one-sidedness
// requirement): the event functions are read on the integrator's interpolant, so locating
// an event costs guard evaluations, never a re-integration.
//
// Every locator keeps a bracket [t_a, t_b] with the guard not fired at t_a and fired at t_b,
// shrinks it until t_b - t_a <= tolerance, or until no representable time lies strictly
// between t_a and t_b (a tolerance of 0 asks for exactly that), and returns it. The event is
// then placed at t_a: the state handed to the reset, x(t_a), never violates the mode being
// left. Which side a trial point goes to is decided by the guard itself (the probe's
// `fired`), never by the sign of an interpolated value, so the invariant holds for any guard
// tree. Each trial point costs one dense-output evaluation and guard evaluations, never a
// field evaluation.
//
// The locators differ in where they put the trial point:
//   bisect    the midpoint (003, Algorithm 1): one bit per iteration, about 50 for double;
//   illinois  regula falsi on phi, the crossing atom's oriented value, with the Illinois
//             modification (halve the value kept twice in a row; Dowell & Jarratt, BIT 11,
//             1971), as in CVODE's cvRootfind: superlinear on a simple root;
//   itp       interpolate, truncate, project (Oliveira & Takahashi, ACM TOMS 47(1), 2021):
//             reaches a width of 2 eps in at most n_1/2 + 1 trial points (n_1/2 the count
//             bisection needs for that width), superlinear on a smooth root; the last halvings
//             down to adjacent floats cost at most two more than bisection's.
//   secant    the secant through the two most recent trial points (the bracket's ends at
//             first), the regula falsi point when that secant leaves the bracket (Dekker's
//             method, in R. P. Brent, Algorithms for Minimization without Derivatives, 1973,
//             ch. 4): order 1.618 on a simple root, where Illinois, which always interpolates
//             between the bracket's ends, reaches about 1.44.
// When phi disagrees with `fired` (a compound guard, or rounding at the last ulps) the
// interpolating locators take the midpoint instead. Illinois and secant also take it when
// three trial points in a row have not halved the bracket (a flat, multiple root).
// The last ulps (Illinois and secant): an interpolated point at or beyond an end of the
// bracket says that the root lies within rounding of that end; the trial point is then the
// representable time next to that end, inside the bracket, which closes the bracket at once
// when the root is there (the idea of CVODE's cvRootfind, which moves such a point a small
// fraction of its tolerance inside). Without it a root exactly at a trial point (phi = 0, as
// for a linear event function located exactly) would be bisected down to one ulp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "hysim/core/scalar.hpp"

namespace hysim {

template <class S>
struct Bracket {
  S t_a;  // guard not fired
  S t_b;  // guard fired
};

// What a trial point tells a locator: whether the guard fired there, and the crossing atom's
// oriented value phi (negative where it does not hold, positive where it does).
template <class S>
struct Probe {
  bool fired = false;
  S phi = S(0);
};

enum class Locator { kBisection, kIllinois, kItp, kSecant };

namespace detail {

// True when another representable time lies strictly between t_a and t_b.
template <class S>
bool splittable(const S& t_a, const S& t_b) {
  const S mid = t_a + (t_b - t_a) / 2;
  return mid > t_a && mid < t_b;
}

// phi has the sign `fired` implies (0 allowed: a trial point exactly on the root): usable
// for interpolation.
template <class S>
bool consistent(const Probe<S>& p) {
  return p.fired ? p.phi >= S(0) : p.phi <= S(0);
}

// ITP's constants (Oliveira & Takahashi, section 3): kappa1 = 0.2 / (b - a), kappa2 = 2,
// n0 = 1, and the projection radius r_j = eps 2^(n_max - j) - (b - a) / 2 with eps half the
// final width; 2^(n_max - j) is kept as a number halved each iteration.
template <class S>
struct Itp {
  S kappa1, eps, pow2;

  // For the bracket [t_a, t_b] at the start; `used`: pow2 is counted (ITP is the locator).
  Itp(const S& t_a, const S& t_b, const S& tolerance, bool used) {
    using std::abs;
    const S width0 = t_b - t_a;
    kappa1 = S(0.2) / width0;
    // eps: half the final width, one ulp of t or the tolerance, so that ITP's iteration bound
    // covers the whole location.
    eps = std::max<S>(tolerance / 2, machine_epsilon<S>() / 4 * std::max<S>(abs(t_a), abs(t_b)));
    pow2 = S(2);  // 2^(n0 + n_1/2) with n_1/2 = ceil(log2(width0 / (2 eps)))
    if (used) {
      for (S w = width0; w > 2 * eps; w /= 2) pow2 *= 2;
    }
  }

  // The trial point in [t_a, t_b] (midpoint mid) from the regula falsi point t_falsi.
  S point(const S& t_a, const S& t_b, const S& mid, const S& t_falsi) {
    using std::abs;
    const S half = (t_b - t_a) / 2;
    const S delta = kappa1 * (t_b - t_a) * (t_b - t_a);
    const S sigma = mid > t_falsi ? S(1) : S(-1);
    const S t_trunc = delta <= abs(mid - t_falsi) ? t_falsi + sigma * delta : mid;  // truncate
    const S r = std::max<S>(eps * pow2 - half, S(0));
    pow2 /= 2;
    return abs(t_trunc - mid) <= r ? t_trunc : mid - sigma * r;  // project onto the minmax disk
  }
};

}  // namespace detail

// probe(t) evaluates the guard on the dense output at t. phi_a, phi_b: the crossing atom's
// oriented values at the bracket's ends (only used by the interpolating locators).
// iterations counts the trial points.
template <class S, class ProbeFn>
Bracket<S> locate(Locator locator, S t_a, S t_b, S phi_a, S phi_b, const S& tolerance, ProbeFn&& probe,
                  std::int64_t* iterations) {
  bool interpolate = locator != Locator::kBisection && phi_a < S(0) && phi_b > S(0);
  const bool safeguarded = locator == Locator::kIllinois || locator == Locator::kSecant;
  int kept_a = 0, kept_b = 0;  // Illinois: how many times in a row each end was kept
  // Secant: the two most recent trial points, (t_0, phi_0) the older.
  S t_0 = t_a, phi_0 = phi_a, t_1 = t_b, phi_1 = phi_b;
  // Illinois' safeguard (as in Dekker's and Brent's methods): when its steps have not halved
  // the bracket in three trial points (a flat, multiple root), the next point is the midpoint.
  S width_mark = t_b - t_a;
  int since_halving = 0;
  detail::Itp<S> itp(t_a, t_b, tolerance, locator == Locator::kItp);

  while (t_b - t_a > tolerance && detail::splittable(t_a, t_b)) {
    const S mid = t_a + (t_b - t_a) / 2;
    S t = mid;
    if (t_b - t_a <= width_mark / 2) {
      width_mark = t_b - t_a;
      since_halving = 0;
    }
    if (interpolate && safeguarded && ++since_halving > 3) {
      width_mark = t_b - t_a;  // the midpoint halves it
      since_halving = 0;
    } else if (interpolate) {
      const S t_falsi = (t_a * phi_b - t_b * phi_a) / (phi_b - phi_a);  // regula falsi point
      if (locator == Locator::kIllinois) {
        t = t_falsi;
      } else if (locator == Locator::kSecant) {
        t = phi_1 != phi_0 ? t_1 - phi_1 * (t_1 - t_0) / (phi_1 - phi_0) : t_falsi;
        if (!(t > t_a && t < t_b)) t = t_falsi;
      } else {
        t = itp.point(t_a, t_b, mid, t_falsi);
      }
      if (safeguarded && t <= t_a) {
        t = next_up(t_a);  // the last ulps: the root is within rounding of t_a
      } else if (safeguarded && t >= t_b) {
        t = -next_up(-t_b);
      }
      if (!(t > t_a && t < t_b)) t = mid;  // NaN
    }
    ++*iterations;
    const Probe<S> p = probe(t);
    if (interpolate && !detail::consistent(p)) interpolate = false;
    t_0 = t_1;
    phi_0 = phi_1;
    t_1 = t;
    phi_1 = p.phi;
    if (p.fired) {
      t_b = t;
      phi_b = p.phi;
      kept_b = 0;
      if (++kept_a >= 2 && locator == Locator::kIllinois) phi_a /= 2;  // Illinois modification
    } else {
      t_a = t;
      phi_a = p.phi;
      kept_a = 0;
      if (++kept_b >= 2 && locator == Locator::kIllinois) phi_b /= 2;
    }
  }
  return {t_a, t_b};
}

// Bisection only: probe(t) returns whether the guard fired at t.
template <class S, class Fired>
Bracket<S> bisect(S t_a, S t_b, const S& tolerance, Fired&& fired, std::int64_t* iterations) {
  return locate<S>(
      Locator::kBisection, t_a, t_b, S(-1), S(1), tolerance,
      [&fired](S t) { return Probe<S>{static_cast<bool>(fired(t)), S(0)}; }, iterations);
}

}  // namespace hysim
