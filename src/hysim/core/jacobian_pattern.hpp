// The structure of the Jacobian df/dx of a model's fields: which states each component of the
// field may read, in any mode. A model file knows it from its expression graph (lang/build.cpp);
// a C++ model may give it (Model::jacobian_pattern). The implicit steppers use it twice
// (solvers/iteration_matrix.hpp):
//   - the finite-difference Jacobian perturbs, in one evaluation of the field, every state of a
//     group of columns that share no row (A. R. Curtis, M. J. D. Powell, J. K. Reid, "On the
//     estimation of sparse Jacobian matrices", J. Inst. Maths Applics 13, 1974): a three-point
//     stencil costs 3 evaluations whatever the number of states, not n;
//   - the iteration matrix I - c J is factored by a sparse LU.
// The pattern is structural: an entry outside it is exactly 0 in every mode, at every point.
#pragma once

#include <cstddef>
#include <vector>

namespace hysim {

struct JacobianPattern {
  std::size_t n = 0;
  // Compressed columns: the rows of column j are rows[column_start[j] .. column_start[j + 1]),
  // ascending. Every diagonal entry is in (the iteration matrices need it).
  std::vector<std::size_t> column_start;
  std::vector<std::size_t> rows;

  // The pattern of a field whose component i reads the states reads[i] (any order, repeats
  // allowed), with the diagonal added. Throws InvalidArgument for a state index >= n or a
  // number of rows other than n.
  static JacobianPattern from_reads(const std::vector<std::vector<std::size_t>>& reads);
  // The full pattern of n states.
  static JacobianPattern dense(std::size_t n);

  std::size_t nonzeros() const { return rows.size(); }
  // nonzeros / n^2.
  double density() const;
  // The largest i - j (lower) and j - i (upper) over the entries (i, j).
  std::size_t lower_bandwidth() const;
  std::size_t upper_bandwidth() const;

  // Groups of structurally orthogonal columns (no two in a group share a row), greedily in the
  // order of the columns: colour[j] for each column, and the number of groups. A band matrix of
  // half-widths l and u gets l + u + 1 groups, a dense one n.
  std::vector<std::size_t> colour_columns(std::size_t* groups) const;

  // Throws InvalidArgument when the pattern is not well formed for n states (sizes, order, the
  // diagonal); `what` names it in the message.
  void validate(std::size_t states, const char* what) const;
};

}  // namespace hysim
