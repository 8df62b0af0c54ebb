// The tape: a model file's expressions compiled into a compact register program, evaluated
// in the run's scalar type without allocating. It is one of two back ends: the native one
// (lang/native.hpp) prints the same programs as C and is the default; the tape needs no
// compiler, so it runs when none works, and it is what the fuzzers exercise. Both take each
// operation's meaning from lang/operators.hpp, so they agree bit for bit.
//
// A tape evaluates a list of graph nodes (a mode's derivatives, a guard atom, its rate, the
// values of a reset) for given t, x, prior(x) and field values. Registers hold, in order:
// t, the `jumping` flag, x, prior(x), f, the tape's constants, then one register per
// operation. Subexpressions of parameters and literals alone are folded into constants when
// the tape is built, with the parameter values of the run; every other node is one
// instruction, in an order where each operand is computed before it is read. Evaluation works on the raw type (__float128 for
// float128), with the same library functions that Boost.Multiprecision calls, so a file and
// a C++ model that write the same arithmetic get the same bits.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "hysim/core/scalar.hpp"
#include "hysim/lang/expr.hpp"

namespace hysim::lang {

template <class S>
struct RawScalar {
  using type = S;
};
template <>
struct RawScalar<float128> {
  using type = __float128;
};

template <class S>
class Tape {
 public:
  using R = typename RawScalar<S>::type;

  // Compiles `outputs` of `graph`; `parameters` are the run's values in S, by index.
  // Throws InvalidArgument when the program would need more than 65,535 registers.
  Tape(const Graph& graph, const std::vector<NodeId>& outputs, const std::vector<S>& parameters, int state_count);

  // Evaluates every output into out[0..outputs). `prior` and `field` may be null when the
  // outputs do not read them.
  void evaluate(const S& t, const S* x, const S* prior, const S* field, S* out) const;
  // Evaluates output i into out[positions[i]] (a reset writes the states it jumps).
  void scatter(const S& t, const S* x, const S* prior, const S* field, S* out, const int* positions) const;
  // The single output of a one-output tape, during continuous evolution (jumping false).
  S value(const S& t, const S* x, const S* prior, const S* field) const;
  // The same across a jump: x+ the tentative state, x_prior the a priori one, jumping true.
  S jump_value(const S& t, const S* x_plus, const S* x_prior) const;

  // Folds a constant node (parameters and literals only) to its value.
  static S fold(const Graph& graph, NodeId id, const std::vector<S>& parameters);

  std::size_t instructions() const { return code_.size(); }

 private:
  struct Instruction {
    Op op;
    std::uint16_t dst, a, b, c;
  };
  // register_of: the registers of the nodes compiled so far, by node. A map, not a vector
  // over the whole graph: a model's graph grows with its modes and guards, and each of its
  // programs reads a few nodes of it (a vector per program made building quadratic).
  std::uint16_t compile(const Graph& graph, NodeId id, const std::vector<S>& parameters,
                        std::unordered_map<NodeId, int>* register_of);
  std::uint16_t new_register();
  void run(R* r) const;
  R* load(R* scratch, const S& t, const S* x, const S* prior, const S* field, bool jumping = false) const;

  int state_count_ = 0;
  bool reads_x_ = false, reads_prior_ = false, reads_field_ = false;
  std::size_t first_constant_ = 0;
  std::vector<R> constants_;
  std::size_t registers_ = 0;
  std::vector<Instruction> code_;
  std::vector<std::uint16_t> outputs_;
};

extern template class Tape<double>;
extern template class Tape<long double>;
extern template class Tape<float128>;

}  // namespace hysim::lang
