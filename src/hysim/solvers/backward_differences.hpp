// The backward differences of a multistep method's history at a constant spacing h, and the two
// things ndf (solvers/ndf.cpp) does with them besides stepping: evaluate the interpolating
// polynomial they define, and re-express it at another spacing. D[j] (j = 0 .. k) holds
// nabla^j x_n, n values each:
//   nabla^0 x_n = x_n,   nabla^j x_n = nabla^(j-1) x_n - nabla^(j-1) x_(n-1).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace hysim::solvers {

// The largest k (polynomial degree) the functions below accept.
inline constexpr std::size_t kMaxDifferenceOrder = 5;

// x(t_n + s h) of the polynomial of degree k through x_n, x_(n-1), ..., x_(n-k), in Newton's
// backward form: sum_{j=0..k} D[j] prod_{m=0..j-1} (s + m) / (m + 1). At s = 0 it is x_n, at
// s = -1 x_(n-1) (up to rounding).
template <class S>
void backward_interpolate(const std::vector<S>* D, std::size_t k, S s, std::size_t n, S* x) {
  for (std::size_t i = 0; i < n; ++i) x[i] = D[0][i];
  S weight = S(1);
  for (std::size_t j = 1; j <= k; ++j) {
    weight *= (s + S(j - 1)) / S(j);
    for (std::size_t i = 0; i < n; ++i) x[i] += weight * D[j][i];
  }
}

// D[0 .. k] at the spacing rho h instead of h, in place: the same polynomial's backward
// differences at x_n, x_n(t_n - rho h), ... (Shampine & Reichelt, "The MATLAB ODE Suite", SIAM
// J. Sci. Comput. 18(1), 1997, Section 2.3):
//   D_new = (R(rho) U)^T D,   R_ij(rho) = prod_{m=1..i} (m - 1 - j rho) / m  (R_0j = 1),
//   U = R(1),   i, j = 0 .. k.
// D[0] = x_n is unchanged (column 0 of R U is the unit vector).
template <class S>
void rescale_backward_differences(std::vector<S>* D, std::size_t k, S rho, std::size_t n) {
  constexpr std::size_t kSize = kMaxDifferenceOrder + 1;
  std::array<S, kSize * kSize> r{}, u{}, ru{};
  const auto fill = [k](std::array<S, kSize * kSize>& m, S ratio) {
    for (std::size_t j = 0; j <= k; ++j) m[j] = S(1);
    for (std::size_t i = 1; i <= k; ++i) {
      for (std::size_t j = 0; j <= k; ++j) {
        m[i * kSize + j] = m[(i - 1) * kSize + j] * (S(i) - S(1) - S(j) * ratio) / S(i);
      }
    }
  };
  fill(r, rho);
  fill(u, S(1));
  for (std::size_t i = 0; i <= k; ++i) {
    for (std::size_t j = 0; j <= k; ++j) {
      S sum = S(0);
      for (std::size_t m = 0; m <= k; ++m) sum += r[i * kSize + m] * u[m * kSize + j];
      ru[i * kSize + j] = sum;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::array<S, kSize> column{};
    for (std::size_t j = 0; j <= k; ++j) {
      S sum = S(0);
      for (std::size_t m = 0; m <= k; ++m) sum += ru[m * kSize + j] * D[m][i];
      column[j] = sum;
    }
    for (std::size_t j = 0; j <= k; ++j) D[j][i] = column[j];
  }
}

}  // namespace hysim::solvers
