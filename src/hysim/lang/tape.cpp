#include "hysim/lang/tape.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include "hysim/core/errors.hpp"
#include "hysim/lang/operators.hpp"

namespace hysim::lang {

namespace {

template <class S>
typename RawScalar<S>::type to_raw(const S& v) {
  if constexpr (std::is_same_v<S, float128>) {
    return v.backend().value();
  } else {
    return v;
  }
}

// One operation on raw values, as lang/operators.hpp states it (leaves are registers, never
// operations).
template <class R>
inline R apply_op(Op op, R a, R b, R c) {
  const Semantics<R> f = operator_of<R>(op).tape;
  return f != nullptr ? f(a, b, c) : R(0);
}

// The frequent operations, inlined: their row's function is known when compiling.
template <Op op, class R>
inline R apply_known(R a, R b) {
  constexpr Semantics<R> f = operator_of<R>(op).tape;
  return f(a, b, R(0));
}

constexpr std::size_t kMaxRegisters = 65535;
// Programs with up to this many registers run on the stack; larger ones use a per-thread
// buffer that grows once.
constexpr std::size_t kStackRegisters = 96;

}  // namespace

template <class S>
S Tape<S>::fold(const Graph& graph, NodeId id, const std::vector<S>& parameters) {
  const Node& node = graph[id];
  switch (node.op) {
    case Op::kConstant: return parse_decimal<S>(node.text, "a literal");
    case Op::kParameter: return parameters[static_cast<std::size_t>(node.index)];
    default: break;
  }
  if (is_square(graph, node)) {
    const R a = to_raw(fold(graph, node.args[0], parameters));
    return S(a * a);
  }
  R args[3] = {R(0), R(0), R(0)};
  for (std::size_t i = 0; i < node.args.size() && i < 3; ++i) args[i] = to_raw(fold(graph, node.args[i], parameters));
  return S(apply_op(node.op, args[0], args[1], args[2]));
}

template <class S>
std::uint16_t Tape<S>::new_register() {
  if (registers_ >= kMaxRegisters) {
    throw InvalidArgument("a model file's expression needs more than 65535 registers; split the model");
  }
  return static_cast<std::uint16_t>(registers_++);
}

template <class S>
Tape<S>::Tape(const Graph& graph, const std::vector<NodeId>& outputs, const std::vector<S>& parameters,
              int state_count)
    : state_count_(state_count) {
  const auto n = static_cast<std::size_t>(state_count);
  first_constant_ = 2 + 3 * n;
  registers_ = first_constant_;
  // Constants first, so that they sit together and load with one copy.
  std::unordered_map<NodeId, int> register_of;  // (compile())
  std::vector<NodeId> pending(outputs.begin(), outputs.end());
  std::unordered_set<NodeId> visited;
  while (!pending.empty()) {
    const NodeId id = pending.back();
    pending.pop_back();
    if (!visited.insert(id).second) continue;
    if (graph.is_constant(id)) {
      register_of[id] = new_register();
      constants_.push_back(to_raw(fold(graph, id, parameters)));
      continue;
    }
    for (NodeId arg : graph[id].args) pending.push_back(arg);
  }
  for (NodeId id : outputs) outputs_.push_back(compile(graph, id, parameters, &register_of));
}

template <class S>
std::uint16_t Tape<S>::compile(const Graph& graph, NodeId id, const std::vector<S>& parameters,
                               std::unordered_map<NodeId, int>* register_of) {
  const auto known = register_of->find(id);
  if (known != register_of->end()) return static_cast<std::uint16_t>(known->second);
  const Node& node = graph[id];
  const auto slot = [&](std::size_t group) {  // 0: x, 1: prior, 2: f
    return static_cast<std::uint16_t>(2 + group * static_cast<std::size_t>(state_count_) +
                                      static_cast<std::size_t>(node.index));
  };
  std::uint16_t result = 0;
  switch (node.op) {
    case Op::kTime: result = 0; break;
    case Op::kJumping: result = 1; break;
    case Op::kState: reads_x_ = true; result = slot(0); break;
    case Op::kPrior: reads_prior_ = true; result = slot(1); break;
    case Op::kFieldValue: reads_field_ = true; result = slot(2); break;
    default: {
      Instruction in{node.op, 0, 0, 0, 0};
      if (is_square(graph, node)) {
        in.op = Op::kMultiply;
        in.a = in.b = compile(graph, node.args[0], parameters, register_of);
      } else {
        std::uint16_t* operands[3] = {&in.a, &in.b, &in.c};
        for (std::size_t i = 0; i < node.args.size() && i < 3; ++i) {
          *operands[i] = compile(graph, node.args[i], parameters, register_of);
        }
      }
      in.dst = new_register();
      code_.push_back(in);
      result = in.dst;
    }
  }
  (*register_of)[id] = result;
  return result;
}

template <class S>
void Tape<S>::run(R* r) const {
  for (const Instruction& in : code_) {
    const R a = r[in.a];
    R& d = r[in.dst];
    switch (in.op) {  // the frequent operations inline; the rest through apply_op
      case Op::kAdd: d = apply_known<Op::kAdd>(a, r[in.b]); break;
      case Op::kSubtract: d = apply_known<Op::kSubtract>(a, r[in.b]); break;
      case Op::kMultiply: d = apply_known<Op::kMultiply>(a, r[in.b]); break;
      case Op::kDivide: d = apply_known<Op::kDivide>(a, r[in.b]); break;
      case Op::kNegate: d = apply_known<Op::kNegate>(a, a); break;
      default: d = apply_op(in.op, a, r[in.b], r[in.c]); break;
    }
  }
}

template <class S>
typename Tape<S>::R* Tape<S>::load(R* scratch, const S& t, const S* x, const S* prior, const S* field,
                                   bool jumping) const {
  R* r = scratch;
  if (registers_ > kStackRegisters) {
    thread_local std::vector<R> buffer;
    if (buffer.size() < registers_) buffer.resize(registers_);
    r = buffer.data();
  }
  r[0] = to_raw(t);
  r[1] = jumping ? R(1) : R(0);
  const auto n = static_cast<std::size_t>(state_count_);
  if (reads_x_) {
    for (std::size_t i = 0; i < n; ++i) r[2 + i] = to_raw(x[i]);
  }
  if (reads_prior_) {
    for (std::size_t i = 0; i < n; ++i) r[2 + n + i] = to_raw(prior[i]);
  }
  if (reads_field_) {
    for (std::size_t i = 0; i < n; ++i) r[2 + 2 * n + i] = to_raw(field[i]);
  }
  if (!constants_.empty()) std::memcpy(r + first_constant_, constants_.data(), constants_.size() * sizeof(R));
  run(r);
  return r;
}

template <class S>
void Tape<S>::evaluate(const S& t, const S* x, const S* prior, const S* field, S* out) const {
  R scratch[kStackRegisters];
  const R* r = load(scratch, t, x, prior, field);
  for (std::size_t i = 0; i < outputs_.size(); ++i) out[i] = S(r[outputs_[i]]);
}

template <class S>
void Tape<S>::scatter(const S& t, const S* x, const S* prior, const S* field, S* out, const int* positions) const {
  R scratch[kStackRegisters];
  const R* r = load(scratch, t, x, prior, field);
  for (std::size_t i = 0; i < outputs_.size(); ++i) out[positions[i]] = S(r[outputs_[i]]);
}

template <class S>
S Tape<S>::value(const S& t, const S* x, const S* prior, const S* field) const {
  R scratch[kStackRegisters];
  const R* r = load(scratch, t, x, prior, field);
  return S(r[outputs_[0]]);
}

template <class S>
S Tape<S>::jump_value(const S& t, const S* x_plus, const S* x_prior) const {
  R scratch[kStackRegisters];
  const R* r = load(scratch, t, x_plus, x_prior, nullptr, true);
  return S(r[outputs_[0]]);
}

template class Tape<double>;
template class Tape<long double>;
template class Tape<float128>;

}  // namespace hysim::lang
