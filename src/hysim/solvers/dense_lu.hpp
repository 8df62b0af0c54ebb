// The LU factorization with partial pivoting of a small dense n x n matrix, shared by the
// implicit steppers (rosenbrock4, ndf): they factor the iteration matrix M = I / (gamma h) - J
// or I - c J once and solve with it several times. Row-major storage, sized once; factoring
// and solving allocate nothing (Golub & Van Loan, Matrix Computations, Algorithm 3.4.1).
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "hysim/core/scalar.hpp"

namespace hysim::solvers {

template <class S>
class DenseLu {
 public:
  explicit DenseLu(std::size_t n) : lu_(n * n), perm_(n) {}

  // The matrix to factor, row-major: element (i, j) is matrix()[i * n + j]. Filled by the
  // caller, then factored in place by factor().
  S* matrix() { return lu_.data(); }

  // P M = L U with unit lower L, in place. perm_[k] is the row swapped with row k at step k.
  // False on a zero or non-finite pivot (M singular to working precision, or not finite).
  bool factor() {
    using std::abs;
    const std::size_t n = perm_.size();
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t pivot = k;
      for (std::size_t i = k + 1; i < n; ++i) {
        if (abs(lu_[i * n + k]) > abs(lu_[pivot * n + k])) pivot = i;
      }
      const S p = lu_[pivot * n + k];
      if (!(abs(p) > S(0)) || !is_finite(p)) return false;
      perm_[k] = pivot;
      if (pivot != k) {
        for (std::size_t j = 0; j < n; ++j) std::swap(lu_[k * n + j], lu_[pivot * n + j]);
      }
      for (std::size_t i = k + 1; i < n; ++i) {
        const S l = lu_[i * n + k] / p;
        lu_[i * n + k] = l;
        for (std::size_t j = k + 1; j < n; ++j) lu_[i * n + j] -= l * lu_[k * n + j];
      }
    }
    return true;
  }

  // b := M^-1 b with the factors of the last successful factor().
  void solve(S* b) const {
    const std::size_t n = perm_.size();
    for (std::size_t k = 0; k < n; ++k) {
      if (perm_[k] != k) std::swap(b[k], b[perm_[k]]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < i; ++j) b[i] -= lu_[i * n + j] * b[j];
    }
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t j = i + 1; j < n; ++j) b[i] -= lu_[i * n + j] * b[j];
      b[i] /= lu_[i * n + i];
    }
  }

 private:
  std::vector<S> lu_;
  std::vector<std::size_t> perm_;
};

}  // namespace hysim::solvers
