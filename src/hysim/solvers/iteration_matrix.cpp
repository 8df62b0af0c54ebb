#include "hysim/solvers/iteration_matrix.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <boost/multiprecision/eigen.hpp>  // Eigen::NumTraits of float128
#include <cmath>
#include <limits>
#include <vector>

namespace hysim::solvers {

template <class S>
struct IterationMatrix<S>::Impl {
  using DenseMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  using SparseMatrix = Eigen::SparseMatrix<S, Eigen::ColMajor, int>;

  explicit Impl(std::size_t size) : n(size), solution(static_cast<Eigen::Index>(size)) { make_dense(); }

  std::size_t n;
  bool sparse = false;
  // The columns of J in groups that share no row: group_start / group_columns in the order of
  // the groups; for each column its rows (the pattern, or all of them).
  std::vector<std::size_t> group_start, group_columns;
  std::shared_ptr<const JacobianPattern> pattern;  // dense: null
  // dense
  DenseMatrix jac_dense, m_dense;
  Eigen::PartialPivLU<DenseMatrix> lu_dense;
  // sparse: jac_sparse and m_sparse share the pattern; diagonal[j] is the position of (j, j) in
  // their value arrays
  SparseMatrix jac_sparse, m_sparse;
  std::vector<Eigen::Index> diagonal;
  Eigen::SparseLU<SparseMatrix, Eigen::COLAMDOrdering<int>> lu_sparse;
  Vector solution;
  bool factored = false;  // the last factor() succeeded

  void make_dense() {
    sparse = false;
    const auto size = static_cast<Eigen::Index>(n);
    jac_dense = DenseMatrix::Zero(size, size);
    m_dense = DenseMatrix::Zero(size, size);
    lu_dense = Eigen::PartialPivLU<DenseMatrix>(size);
    jac_sparse = SparseMatrix();
    m_sparse = SparseMatrix();
  }

  void make_sparse() {
    sparse = true;
    const auto size = static_cast<Eigen::Index>(n);
    jac_dense = DenseMatrix();
    m_dense = DenseMatrix();
    jac_sparse = SparseMatrix(size, size);
    std::vector<Eigen::Triplet<S, int>> entries;
    entries.reserve(pattern->nonzeros());
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t k = pattern->column_start[j]; k < pattern->column_start[j + 1]; ++k) {
        entries.emplace_back(static_cast<int>(pattern->rows[k]), static_cast<int>(j), S(0));
      }
    }
    jac_sparse.setFromTriplets(entries.begin(), entries.end());
    jac_sparse.makeCompressed();
    m_sparse = jac_sparse;
    diagonal.assign(n, 0);
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t k = pattern->column_start[j]; k < pattern->column_start[j + 1]; ++k) {
        if (pattern->rows[k] == j) diagonal[j] = static_cast<Eigen::Index>(k);
      }
    }
    lu_sparse.analyzePattern(m_sparse);
  }

  // The groups of columns: by the pattern's colouring, or one column per group.
  void make_groups() {
    group_start.assign(1, 0);
    group_columns.clear();
    if (!pattern) {
      for (std::size_t j = 0; j < n; ++j) {
        group_columns.push_back(j);
        group_start.push_back(j + 1);
      }
      return;
    }
    std::size_t groups = 0;
    const std::vector<std::size_t> colour = pattern->colour_columns(&groups);
    std::vector<std::size_t> count(groups + 1, 0);
    for (std::size_t c : colour) ++count[c + 1];
    for (std::size_t g = 0; g < groups; ++g) count[g + 1] += count[g];
    group_start = count;
    group_columns.assign(n, 0);
    for (std::size_t j = 0; j < n; ++j) group_columns[count[colour[j]]++] = j;
  }

  // Column j of J from the field perturbed in j (and in columns that share no row with it).
  void store_column(std::size_t j, const S* f, const S* f0, S delta) {
    if (sparse) {
      S* values = jac_sparse.valuePtr();
      for (std::size_t k = pattern->column_start[j]; k < pattern->column_start[j + 1]; ++k) {
        const std::size_t i = pattern->rows[k];
        values[k] = (f[i] - f0[i]) / delta;
      }
    } else if (pattern) {
      for (std::size_t k = pattern->column_start[j]; k < pattern->column_start[j + 1]; ++k) {
        const std::size_t i = pattern->rows[k];
        jac_dense(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = (f[i] - f0[i]) / delta;
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        jac_dense(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = (f[i] - f0[i]) / delta;
      }
    }
  }
};

template <class S>
IterationMatrix<S>::IterationMatrix(std::size_t n) : impl_(std::make_unique<Impl>(n)) {
  impl_->make_groups();
}

template <class S>
IterationMatrix<S>::~IterationMatrix() = default;

template <class S>
void IterationMatrix<S>::use_pattern(std::shared_ptr<const JacobianPattern> pattern, LinearSolver choice) {
  Impl& m = *impl_;
  if (pattern) pattern->validate(m.n, "the implicit solver");
  if (!pattern && choice == LinearSolver::kSparse) pattern = std::make_shared<JacobianPattern>(JacobianPattern::dense(m.n));
  m.pattern = std::move(pattern);
  const bool sparse = choice == LinearSolver::kSparse ||
                      (choice == LinearSolver::kAuto && m.pattern && m.n >= kSparseMinStates &&
                       m.pattern->density() <= kSparseMaxDensity);
  if (sparse) {
    m.make_sparse();
  } else {
    m.make_dense();
  }
  m.make_groups();
  m.factored = false;
}

template <class S>
bool IterationMatrix<S>::is_sparse() const {
  return impl_->sparse;
}

template <class S>
std::size_t IterationMatrix<S>::evaluations_per_jacobian() const {
  return impl_->group_start.size() - 1;
}

template <class S>
bool IterationMatrix<S>::differentiate(const Rhs<S>& rhs, S t, const S* x, const S* f0,
                                       const StepperTolerances<S>& tolerances, S h, S* x_scratch, S* f_scratch) {
  using std::abs;
  using std::max;
  using std::sqrt;
  Impl& m = *impl_;
  const std::size_t n = m.n;
  const S unit_roundoff = machine_epsilon<S>();
  const S relative = sqrt(unit_roundoff);
  S sum = S(0);
  for (std::size_t i = 0; i < n; ++i) {
    const S scaled = f0[i] / (tolerances.atol_at(i) + tolerances.rtol * abs(x[i]));
    sum += scaled * scaled;
  }
  const S step_in_tolerances = abs(h) * sqrt(sum / S(n));  // |h| ||f||
  const S min_increment = step_in_tolerances > S(0) && is_finite(step_in_tolerances)
                              ? S(1000) * unit_roundoff * S(n) * step_in_tolerances  // CVODE's MIN_INC_MULT
                              : S(1);
  std::copy(x, x + n, x_scratch);
  for (std::size_t g = 0; g + 1 < m.group_start.size(); ++g) {
    for (std::size_t k = m.group_start[g]; k < m.group_start[g + 1]; ++k) {
      const std::size_t j = m.group_columns[k];
      const S weight = tolerances.atol_at(j) + tolerances.rtol * abs(x[j]);
      const S increment = max(relative * abs(x[j]), min_increment * weight);
      x_scratch[j] = x[j] + (increment > S(0) ? increment : relative);  // 0: atol = 0 at x_j = 0
    }
    rhs(t, x_scratch, f_scratch);
    for (std::size_t k = m.group_start[g]; k < m.group_start[g + 1]; ++k) {
      const std::size_t j = m.group_columns[k];
      m.store_column(j, f_scratch, f0, x_scratch[j] - x[j]);
      x_scratch[j] = x[j];
    }
  }
  if (m.sparse) {
    const S* values = m.jac_sparse.valuePtr();
    return std::all_of(values, values + m.jac_sparse.nonZeros(), [](const S& v) { return is_finite(v); });
  }
  return m.jac_dense.allFinite();
}

template <class S>
void IterationMatrix<S>::multiply(const S* v, S* out) const {
  const Impl& m = *impl_;
  const auto size = static_cast<Eigen::Index>(m.n);
  Eigen::Map<const typename Impl::Vector> in(v, size);
  Eigen::Map<typename Impl::Vector> result(out, size);
  if (m.sparse) {
    result.noalias() = m.jac_sparse * in;
  } else {
    result.noalias() = m.jac_dense * in;
  }
}

template <class S>
bool IterationMatrix<S>::factor(S diagonal, S scale) {
  using std::abs;
  Impl& m = *impl_;
  m.factored = false;
  if (m.sparse) {
    const S* jac = m.jac_sparse.valuePtr();
    S* values = m.m_sparse.valuePtr();
    const auto count = static_cast<std::size_t>(m.jac_sparse.nonZeros());
    for (std::size_t k = 0; k < count; ++k) values[k] = -scale * jac[k];
    for (Eigen::Index k : m.diagonal) values[k] += diagonal;
    if (!std::all_of(values, values + count, [](const S& v) { return is_finite(v); })) return false;
    m.lu_sparse.factorize(m.m_sparse);
    m.factored = m.lu_sparse.info() == Eigen::Success;
    return m.factored;
  }
  m.m_dense.noalias() = -scale * m.jac_dense;
  m.m_dense.diagonal().array() += diagonal;
  if (!m.m_dense.allFinite()) return false;
  m.lu_dense.compute(m.m_dense);
  const auto pivots = m.lu_dense.matrixLU().diagonal();
  for (Eigen::Index i = 0; i < pivots.size(); ++i) {
    if (!(abs(pivots[i]) > S(0)) || !is_finite(pivots[i])) return false;
  }
  m.factored = true;
  return true;
}

template <class S>
void IterationMatrix<S>::solve(S* b) const {
  Impl& m = *impl_;
  Eigen::Map<typename Impl::Vector> rhs(b, static_cast<Eigen::Index>(m.n));
  if (!m.factored) {  // no factors: a result the caller sees is not finite
    rhs.setConstant(std::numeric_limits<S>::quiet_NaN());
    return;
  }
  if (m.sparse) {
    m.solution = m.lu_sparse.solve(rhs);
  } else {
    m.solution = m.lu_dense.solve(rhs);
  }
  rhs = m.solution;
}

template class IterationMatrix<double>;
template class IterationMatrix<long double>;
template class IterationMatrix<float128>;

}  // namespace hysim::solvers
