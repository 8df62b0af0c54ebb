#include "hysim/core/jacobian_pattern.hpp"

#include <algorithm>
#include <string>

#include "hysim/core/errors.hpp"

namespace hysim {

JacobianPattern JacobianPattern::from_reads(const std::vector<std::vector<std::size_t>>& reads) {
  const std::size_t n = reads.size();
  // Count per column, then place: rows come out ascending because i runs in order.
  std::vector<std::size_t> count(n + 1, 0);
  std::vector<std::size_t> mark(n, n);  // mark[j] == i: (i, j) already placed
  auto each_entry = [&](auto&& visit) {
    for (std::size_t i = 0; i < n; ++i) {
      auto take = [&](std::size_t j) {
        if (j >= n) {
          throw InvalidArgument("Jacobian pattern: component " + std::to_string(i) + " reads state " +
                                std::to_string(j) + " of " + std::to_string(n));
        }
        if (mark[j] == i) return;
        mark[j] = i;
        visit(i, j);
      };
      take(i);
      for (std::size_t j : reads[i]) take(j);
    }
  };
  each_entry([&](std::size_t, std::size_t j) { ++count[j + 1]; });
  JacobianPattern pattern;
  pattern.n = n;
  pattern.column_start.assign(n + 1, 0);
  for (std::size_t j = 0; j < n; ++j) pattern.column_start[j + 1] = pattern.column_start[j] + count[j + 1];
  pattern.rows.assign(pattern.column_start[n], 0);
  std::vector<std::size_t> next(pattern.column_start.begin(), pattern.column_start.end() - 1);
  std::fill(mark.begin(), mark.end(), n);
  each_entry([&](std::size_t i, std::size_t j) { pattern.rows[next[j]++] = i; });
  return pattern;
}

JacobianPattern JacobianPattern::dense(std::size_t n) {
  JacobianPattern pattern;
  pattern.n = n;
  pattern.column_start.resize(n + 1);
  pattern.rows.reserve(n * n);
  for (std::size_t j = 0; j <= n; ++j) pattern.column_start[j] = j * n;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n; ++i) pattern.rows.push_back(i);
  }
  return pattern;
}

double JacobianPattern::density() const {
  return n == 0 ? 1.0 : static_cast<double>(nonzeros()) / (static_cast<double>(n) * static_cast<double>(n));
}

std::size_t JacobianPattern::lower_bandwidth() const {
  std::size_t width = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (column_start[j + 1] > column_start[j]) width = std::max(width, rows[column_start[j + 1] - 1] - std::min(j, rows[column_start[j + 1] - 1]));
  }
  return width;
}

std::size_t JacobianPattern::upper_bandwidth() const {
  std::size_t width = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (column_start[j + 1] > column_start[j]) width = std::max(width, j - std::min(j, rows[column_start[j]]));
  }
  return width;
}

std::vector<std::size_t> JacobianPattern::colour_columns(std::size_t* groups) const {
  // The rows' columns (the transpose), to find the columns that share a row with column j.
  std::vector<std::size_t> row_start(n + 1, 0), columns(rows.size());
  for (std::size_t i : rows) ++row_start[i + 1];
  for (std::size_t i = 0; i < n; ++i) row_start[i + 1] += row_start[i];
  std::vector<std::size_t> next(row_start.begin(), row_start.end() - 1);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = column_start[j]; k < column_start[j + 1]; ++k) columns[next[rows[k]]++] = j;
  }
  std::vector<std::size_t> colour(n, n);
  std::vector<std::size_t> taken(n + 1, n);  // taken[c] == j: colour c is used by a neighbour of j
  std::size_t used = 0;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = column_start[j]; k < column_start[j + 1]; ++k) {
      const std::size_t i = rows[k];
      for (std::size_t m = row_start[i]; m < row_start[i + 1]; ++m) {
        if (colour[columns[m]] < n) taken[colour[columns[m]]] = j;
      }
    }
    std::size_t c = 0;
    while (taken[c] == j) ++c;
    colour[j] = c;
    used = std::max(used, c + 1);
  }
  *groups = used;
  return colour;
}

void JacobianPattern::validate(std::size_t states, const char* what) const {
  auto fail = [&](const std::string& why) {
    throw InvalidArgument(std::string(what) + ": Jacobian pattern " + why);
  };
  if (n != states) fail("of " + std::to_string(n) + " states for " + std::to_string(states));
  if (column_start.size() != n + 1 || column_start[0] != 0 || column_start[n] != rows.size()) {
    fail("with column offsets that do not cover its rows");
  }
  for (std::size_t j = 0; j < n; ++j) {
    bool diagonal = false;
    if (column_start[j + 1] < column_start[j]) fail("with decreasing column offsets");
    for (std::size_t k = column_start[j]; k < column_start[j + 1]; ++k) {
      if (rows[k] >= n) fail("with row " + std::to_string(rows[k]) + " in column " + std::to_string(j));
      if (k > column_start[j] && rows[k] <= rows[k - 1]) fail("with unsorted rows in column " + std::to_string(j));
      diagonal = diagonal || rows[k] == j;
    }
    if (!diagonal) fail("without the diagonal entry of column " + std::to_string(j));
  }
}

}  // namespace hysim
