// The Jacobian that CVODE's sparse direct solver (SUNLinSol_KLU) needs from its user: CVODE
// forms difference quotients only for its dense and band matrices. Forward differences on the
// model's Jacobian pattern, one evaluation of the field per group of columns that share no row
// (Curtis, Powell & Reid; core/jacobian_pattern.hpp), with the increments of CVODE's own dense
// quotient (cvLsDenseDQJac; "User Documentation for CVODE", "Mathematical Considerations"):
//   inc_j = max(sqrt(u) |y_j|, min_inc / w_j),  min_inc = 1000 |h| u n ||f||_WRMS (1 when 0),
// w the error weights 1 / (rtol |y_j| + atol_j), h CVODE's current step, u the unit roundoff.
// Internal to peers/cvode_solver.hpp.
#pragma once

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "hysim/core/jacobian_pattern.hpp"
#include "hysim/solvers/iteration_matrix.hpp"

namespace hysim::cvode_detail {

// CVODE's matrix for BDF on a model's Jacobian pattern (null: none), by the rule of the
// implicit steppers' sparse LU: dense without a pattern or when asked; for 64 states or more
// (any number when `sparse` is asked) a band when the pattern is a band of width at most n / 10,
// else KLU when at most 10 % of the entries may be nonzero (always when `sparse` is asked).
enum class CvodeMatrix { kDense, kBand, kSparse };
inline CvodeMatrix cvode_matrix(const JacobianPattern* pattern, LinearSolver choice) {
  if (pattern == nullptr || choice == LinearSolver::kDense) return CvodeMatrix::kDense;
  const double n = static_cast<double>(pattern->n);
  const double band = static_cast<double>(pattern->lower_bandwidth() + pattern->upper_bandwidth() + 1);
  const bool asked = choice == LinearSolver::kSparse;
  const bool large = asked || pattern->n >= solvers::kSparseMinStates;
  if (large && band <= solvers::kSparseMaxDensity * n) return CvodeMatrix::kBand;
  if (asked || (large && pattern->density() <= solvers::kSparseMaxDensity)) return CvodeMatrix::kSparse;
  return CvodeMatrix::kDense;
}

class SparseDifferenceJacobian {
 public:
  explicit SparseDifferenceJacobian(const JacobianPattern& pattern) : pattern_(pattern) {
    std::size_t groups = 0;
    const std::vector<std::size_t> colour = pattern.colour_columns(&groups);
    group_start_.assign(groups + 1, 0);
    for (std::size_t c : colour) ++group_start_[c + 1];
    for (std::size_t g = 0; g < groups; ++g) group_start_[g + 1] += group_start_[g];
    std::vector<std::size_t> next(group_start_.begin(), group_start_.end() - 1);
    group_columns_.assign(pattern.n, 0);
    for (std::size_t j = 0; j < pattern.n; ++j) group_columns_[next[colour[j]]++] = j;
  }

  std::size_t nonzeros() const { return pattern_.nonzeros(); }

  // J (compressed columns of the pattern) at (t, y), fy = f(t, y); field(t, y, f) returns
  // CVODE's callback status. y_work, f_work, weights: CVODE's work vectors.
  template <class Field>
  int fill(void* cvode, double t, N_Vector y, N_Vector fy, SUNMatrix J, N_Vector y_work, N_Vector f_work,
           N_Vector weights, const Field& field) const {
    const std::size_t n = pattern_.n;
    double h = 0;
    CVodeGetCurrentStep(cvode, &h);
    CVodeGetErrWeights(cvode, weights);
    const double u = 2.220446049250313e-16, root_u = std::sqrt(u);
    const double f_norm = N_VWrmsNorm(fy, weights);
    const double min_inc = f_norm != 0 ? 1000 * std::fabs(h) * u * static_cast<double>(n) * f_norm : 1.0;
    const double* Y = N_VGetArrayPointer(y);
    const double* F = N_VGetArrayPointer(fy);
    const double* W = N_VGetArrayPointer(weights);
    double* Yw = N_VGetArrayPointer(y_work);
    const double* Fw = N_VGetArrayPointer(f_work);
    sunindextype* columns = SUNSparseMatrix_IndexPointers(J);
    sunindextype* rows = SUNSparseMatrix_IndexValues(J);
    double* data = SUNSparseMatrix_Data(J);
    for (std::size_t k = 0; k <= n; ++k) columns[k] = static_cast<sunindextype>(pattern_.column_start[k]);
    for (std::size_t k = 0; k < pattern_.nonzeros(); ++k) rows[k] = static_cast<sunindextype>(pattern_.rows[k]);
    std::copy(Y, Y + n, Yw);
    for (std::size_t g = 0; g + 1 < group_start_.size(); ++g) {
      for (std::size_t k = group_start_[g]; k < group_start_[g + 1]; ++k) {
        const std::size_t j = group_columns_[k];
        Yw[j] = Y[j] + std::max(root_u * std::fabs(Y[j]), min_inc / W[j]);
      }
      if (const int status = field(t, Yw, N_VGetArrayPointer(f_work)); status != 0) return status;
      for (std::size_t k = group_start_[g]; k < group_start_[g + 1]; ++k) {
        const std::size_t j = group_columns_[k];
        const double inc = Yw[j] - Y[j];
        for (std::size_t e = pattern_.column_start[j]; e < pattern_.column_start[j + 1]; ++e) {
          data[e] = (Fw[pattern_.rows[e]] - F[pattern_.rows[e]]) / inc;
        }
        Yw[j] = Y[j];
      }
    }
    return 0;
  }

 private:
  const JacobianPattern& pattern_;
  std::vector<std::size_t> group_start_, group_columns_;
};

}  // namespace hysim::cvode_detail
