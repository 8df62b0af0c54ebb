#include "hysim/lang/build.hpp"

#include <array>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

#include "hysim/core/errors.hpp"
#include "hysim/core/jacobian_pattern.hpp"
#include "hysim/core/switch_parts.hpp"
#include "hysim/lang/interval.hpp"
#include "hysim/lang/native.hpp"
#include "hysim/lang/tape.hpp"

namespace hysim::lang {

static_assert(sizeof(float128) == sizeof(__float128) && alignof(float128) == alignof(__float128),
              "native model code reads boost's float128 as the __float128 it wraps");

namespace {

// A model file compiled once: its description, its programs, and their native code when the
// backend has it (otherwise every program runs on the tape).
struct CompiledModel {
  ModelSpec spec;
  ProgramSet programs;
  NativeOptions options;
  std::string backend;  // the double type's: "native (path)" or "tape (reason)"
  // Each model atom's e and rate, for the certified strategy's enclosures; and the modes'
  // fields with their derivatives for its level 2 (null for more than kFlowMostStates states).
  std::shared_ptr<const FileGuardEnclosure::AtomTable> atom_table;
  std::shared_ptr<const FlowTable> flow_table;
  // Which states each field component reads, in any mode (the implicit solvers' sparsity).
  std::shared_ptr<const JacobianPattern> jacobian_pattern;

  // The native code of the programs in S, compiled (or found in the cache) when a model in S
  // is first built, once whatever the threads asking; null for the tape (asked for, or the
  // auto backend's fallback when the compiler fails). Throws what NativeLibrary::load throws
  // under the native backend, and CompileInterrupted under any (a later call tries again).
  template <class S>
  std::shared_ptr<const NativeLibrary> native() const {
    Native& slot = native_[static_cast<std::size_t>(scalar_kind_of<S>())];
    std::call_once(slot.once, [&] {
      if (options.backend == NativeOptions::Backend::kTape) {
        slot.backend = "tape";
        return;
      }
      try {
        slot.library = NativeLibrary::load(generate_c(spec.graph, programs, scalar_kind_of<S>()),
                                           programs.programs.size(), options, scalar_kind_of<S>());
        slot.backend = "native (" + slot.library->path() + ")";
      } catch (const CompileInterrupted&) {
        throw;  // the command is stopping: no tape either
      } catch (const Error& e) {
        if (options.backend == NativeOptions::Backend::kNative) throw;
        slot.backend = std::string("tape (no native code: ") + e.what() + ")";
      }
    });
    return slot.library;
  }
  template <class S>
  const std::string& backend_of() const {
    (void)native<S>();
    return native_[static_cast<std::size_t>(scalar_kind_of<S>())].backend;
  }

 private:
  struct Native {
    std::once_flag once;
    std::shared_ptr<const NativeLibrary> library;
    std::string backend;
  };
  mutable std::array<Native, 3> native_;  // by ScalarKind
};

template <class S>
using Raw = typename RawScalar<S>::type;

template <class S>
const Raw<S>* raw(const S* x) {
  return reinterpret_cast<const Raw<S>*>(x);
}
template <class S>
Raw<S>* raw(S* x) {
  return reinterpret_cast<Raw<S>*>(x);
}

// The callable form of one program in S: a native function with its constants, or a tape.
template <class S>
struct Program {
  NativeLibrary::Function<S> function = nullptr;
  std::shared_ptr<const std::vector<Raw<S>>> constants;
  std::shared_ptr<const NativeLibrary> library;  // keeps the code loaded
  std::shared_ptr<const Tape<S>> tape;
};

template <class S>
class Builder {
 public:
  Builder(std::shared_ptr<const CompiledModel> compiled, const ParameterValues& values)
      : compiled_(std::move(compiled)), spec_(compiled_->spec), n_(static_cast<int>(spec_.states.size())) {
    for (const auto& p : spec_.parameters) parameters_.push_back(values.get<S>(p.name));
    native_ = compiled_->native<S>();
    if (native_) {
      auto constants = std::make_shared<std::vector<Raw<S>>>();
      for (NodeId id : compiled_->programs.constants) {
        const S value = Tape<S>::fold(spec_.graph, id, parameters_);
        constants->push_back(*raw(&value));
      }
      constants_ = std::move(constants);
    }
  }

  Model<S> build() {
    Model<S> model;
    model.name = spec_.name;
    model.source = spec_.source;
    for (const auto& r : spec_.requirements) {
      if (Tape<S>::fold(spec_.graph, r.condition, parameters_) != S(0)) continue;
      throw InvalidArgument(located(r.where) + "model '" + spec_.name + "' requires " + r.text +
                            (r.message.empty() ? "" : " (" + r.message + ")") + ", which these parameter values break");
    }
    for (const auto& let : spec_.lets) {
      if (spec_.graph.is_constant(let.value)) (void)finite(let.value, "let '" + let.name + "'", let.where);
    }
    for (const auto& s : spec_.states) {
      model.state_names.push_back(s.name);
      model.x0.push_back(finite(s.initial, "the initial value of '" + s.name + "'", s.where));
      if (s.atol.empty()) continue;
      model.state_atol.resize(spec_.states.size(), std::numeric_limits<S>::quiet_NaN());
      model.state_atol[model.state_names.size() - 1] = parse_decimal<S>(s.atol, "the atol of state '" + s.name + "'");
    }
    for (const auto& m : spec_.modes) {
      model.add_mode(m.name, m.algebraic ? FieldFunction<S>{} : field(m.field, m.where), m.description);
    }
    model.initial_mode = initial_mode(model.x0);
    for (const auto& tr : spec_.transitions) {  // by index: add_transition looks its mode up by name
      model.modes[static_cast<std::size_t>(tr.from)].transitions.push_back(
          Transition<S>{tr.label, spec_.modes[static_cast<std::size_t>(tr.to)].name, -1,
                        guard(tr, static_cast<int>(tr.guard.size()) - 1), reset(tr.resets, tr.where), tr.crossing,
                        tr.stop, tr.part});
    }
    if (spec_.zeno) {
      model.zeno.mode_name = spec_.modes[static_cast<std::size_t>(spec_.zeno->mode)].name;
      model.zeno.reset = reset(spec_.zeno->resets, Location{});
    }
    model.jacobian_pattern = compiled_->jacobian_pattern;
    if constexpr (std::is_same_v<S, double>) {
      model.guard_enclosure = [compiled = compiled_, parameters = parameters_, n = n_] {
        return std::make_unique<FileGuardEnclosure>(compiled, compiled->spec.graph, parameters, compiled->atom_table, n,
                                                    compiled->flow_table);
      };
    }
    for (const ComponentSpec& c : spec_.components) model.parts.push_back(component_part(c));
    if (!spec_.parts.empty()) attach_switch_parts(model, parts(), static_cast<std::size_t>(spec_.parts.front().state));
    model.finalize();
    return model;
  }

 private:
  // A component as a part of the model, with its Zeno continuation: the resets (on the a priori
  // state), the component into its resting mode among them.
  ModelPart<S> component_part(const ComponentSpec& c) const {
    ModelPart<S> part{c.name, c.name + ".zeno", {}};
    if (c.zeno_mode >= 0) part.zeno_reset = reset(c.zeno_resets, Location{});
    return part;
  }

  // The switch parts of the file's conditions (lang/split.cpp): each rate is the affine
  // interpolation of the two sides' rates, (1 + sigma)/2 r(+1) + (1 - sigma)/2 r(-1).
  std::vector<SwitchPart<S>> parts() const {
    std::vector<SwitchPart<S>> parts;
    for (const PartSpec& p : spec_.parts) {
      SwitchPart<S> part;
      part.name = p.name;
      part.surface = value_of(program({p.surface}, p.where));
      const Program<S> rates = program({p.rate_up, p.rate_down}, p.where);
      const FieldFunction<S> both = outputs_of(rates);
      part.rate = [both](S t, const S* x, S sigma) {
        S r[2];
        both(t, x, r);
        return (S(1) + sigma) / S(2) * r[0] + (S(1) - sigma) / S(2) * r[1];
      };
      part.reads.assign(p.reads.begin(), p.reads.end());
      part.mode = spec_.modes[static_cast<std::size_t>(p.mode)].name;
      parts.push_back(std::move(part));
    }
    return parts;
  }

  // A program of one output as e(t, x), during continuous evolution.
  static EventFunction<S> value_of(const Program<S>& e) {
    if (e.tape) return [tape = e.tape](S t, const S* x) { return tape->value(t, x, x, nullptr); };
    return [f = e.function, c = e.constants, lib = e.library](S t, const S* x) {
      Raw<S> out;
      f(c->data(), *raw(&t), Raw<S>(0), raw(x), raw(x), nullptr, &out);
      return S(out);
    };
  }

  // A program's outputs into out[], during continuous evolution.
  static FieldFunction<S> outputs_of(const Program<S>& p) {
    if (p.tape) return [tape = p.tape](S t, const S* x, S* out) { tape->evaluate(t, x, x, nullptr, out); };
    return [f = p.function, c = p.constants, lib = p.library](S t, const S* x, S* out) {
      f(c->data(), *raw(&t), Raw<S>(0), raw(x), raw(x), nullptr, raw(out));
    };
  }

  // `at`: where the program's expressions stand in the file, for a tape that cannot be built.
  Program<S> program(const std::vector<NodeId>& outputs, Location at, const std::vector<int>& where = {}) const {
    Program<S> p;
    if (native_) {
      p.function = native_->function<S>(compiled_->programs.find(outputs, where));
      p.constants = constants_;
      p.library = native_;
    } else {
      try {
        p.tape = std::make_shared<const Tape<S>>(spec_.graph, outputs, parameters_, n_);
      } catch (const InvalidArgument& e) {  // more registers than a tape holds
        throw InvalidArgument((at.line > 0 ? located(at) : spec_.file + ": ") + e.what());
      }
    }
    return p;
  }

  FieldFunction<S> field(const std::vector<NodeId>& derivatives, Location at) const {
    return outputs_of(program(derivatives, at));
  }

  Guard<S> guard(const TransitionSpec& tr, int index) const {
    const GuardNode& node = tr.guard[static_cast<std::size_t>(index)];
    if (node.kind == GuardNode::Kind::kAtom) return atom(tr.atoms[static_cast<std::size_t>(node.atom)]);
    Guard<S> result = guard(tr, node.children[0]);
    for (std::size_t c = 1; c < node.children.size(); ++c) {
      Guard<S> next = guard(tr, node.children[c]);
      result = node.kind == GuardNode::Kind::kAnd ? std::move(result) && std::move(next)
                                                  : std::move(result) || std::move(next);
    }
    return result;
  }

  // During continuous evolution prior(x) is x and `jumping` false; across a jump the atom
  // reads (x_prior, x+) with `jumping` true.
  Guard<S> atom(const AtomSpec& a) const {
    const Program<S> e = program({a.e}, a.where);
    EventFunction<S> value;
    JumpEventFunction<S> jump;
    value = value_of(e);
    if (a.reads_prior && e.tape) {
      jump = [tape = e.tape](S t, const S* x_prior, const S* x_plus) { return tape->jump_value(t, x_plus, x_prior); };
    } else if (a.reads_prior) {
      jump = [f = e.function, c = e.constants, lib = e.library](S t, const S* x_prior, const S* x_plus) {
        Raw<S> out;
        f(c->data(), *raw(&t), Raw<S>(1), raw(x_plus), raw(x_prior), nullptr, &out);
        return S(out);
      };
    }
    EventRate<S> rate;
    if (a.rate >= 0) {
      const Program<S> r = program({a.rate}, a.where);
      if (r.tape) {
        rate = [tape = r.tape](S t, const S* x, const S* f) { return tape->value(t, x, x, f); };
      } else {
        rate = [fn = r.function, c = r.constants, lib = r.library](S t, const S* x, const S* f) {
          Raw<S> out;
          fn(c->data(), *raw(&t), Raw<S>(0), raw(x), raw(x), raw(f), &out);
          return S(out);
        };
      }
    }
    const S time = a.time_root >= 0 ? Tape<S>::fold(spec_.graph, a.time_root, parameters_)
                                    : std::numeric_limits<S>::quiet_NaN();
    // prior(v) reads v during continuous evolution: with nothing jumping the jump form is e,
    // unless the guard as written asks `jumping` (an impulse, zero when nothing jumps).
    Guard<S> g = Guard<S>::atom(a.name, std::move(value), a.relation, std::move(rate), std::move(jump), time);
    if (!a.reads_jumping) g = std::move(g).with_continuous_jump();
    // One expression, one function: atoms of the same e share its evaluations (Atom::shared).
    auto& shared = shared_events_[a.e];
    if (!shared) shared = std::make_shared<const NodeId>(a.e);
    return std::move(g).with_shared(shared);
  }

  // x+ = g(x): every right-hand side reads the a priori state (003, invariance of state).
  ResetFunction<S> reset(const std::vector<std::pair<int, NodeId>>& resets, Location at) const {
    if (resets.empty()) return {};
    std::vector<NodeId> values;
    std::vector<int> positions;
    for (const auto& [state, value] : resets) {
      positions.push_back(state);
      values.push_back(value);
    }
    const Program<S> p = program(values, at, positions);
    if (p.tape) {
      auto where = std::make_shared<const std::vector<int>>(positions);
      return [tape = p.tape, where](S t, const S* x_pre, S* x_post) {
        tape->scatter(t, x_pre, x_pre, nullptr, x_post, where->data());
      };
    }
    return [f = p.function, c = p.constants, lib = p.library](S t, const S* x_pre, S* x_post) {
      f(c->data(), *raw(&t), Raw<S>(0), raw(x_pre), raw(x_pre), nullptr, raw(x_post));
    };
  }

  // The first initial declaration whose condition holds on (parameters, x0).
  int initial_mode(const std::vector<S>& x0) const {
    for (const auto& i : spec_.initial) {
      if (i.condition < 0) return i.mode;
      const Tape<S> condition(spec_.graph, {i.condition}, parameters_, n_);
      if (condition.value(S(0), x0.data(), x0.data(), nullptr) != S(0)) return i.mode;
    }
    throw InvalidArgument(located(spec_.initial.back().where) + "no condition of an initial mode of model '" + spec_.name +
                          "' holds with these parameter values; add an unconditional 'initial MODE' last");
  }

  std::string located(Location where) const {
    return spec_.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": ";
  }

  S finite(NodeId id, const std::string& what, Location where) const {
    const S value = Tape<S>::fold(spec_.graph, id, parameters_);
    if (!is_finite(value)) {
      throw InvalidArgument(located(where) + what + " of model '" + spec_.name + "' is " + format_scalar(value) +
                            " with these parameter values; it must be a finite number");
    }
    return value;
  }

  std::shared_ptr<const CompiledModel> compiled_;
  const ModelSpec& spec_;
  int n_;
  std::vector<S> parameters_;
  std::shared_ptr<const NativeLibrary> native_;  // null: the tape
  std::shared_ptr<const std::vector<Raw<S>>> constants_;
  mutable std::map<NodeId, std::shared_ptr<const void>> shared_events_;  // by an atom's e
};

// Every program the builder asks for, in a fixed order.
ProgramSet programs_of(const ModelSpec& spec) {
  ProgramSet set;
  for (const auto& m : spec.modes) {
    if (!m.algebraic) set.add(spec.graph, m.field);
  }
  const auto add_reset = [&](const std::vector<std::pair<int, NodeId>>& resets) {
    if (resets.empty()) return;
    std::vector<NodeId> values;
    std::vector<int> positions;
    for (const auto& [state, value] : resets) {
      positions.push_back(state);
      values.push_back(value);
    }
    set.add(spec.graph, values, positions);
  };
  for (const auto& tr : spec.transitions) {
    for (const auto& a : tr.atoms) {
      set.add(spec.graph, {a.e});
      if (a.rate >= 0) set.add(spec.graph, {a.rate});
    }
    add_reset(tr.resets);
  }
  if (spec.zeno) add_reset(spec.zeno->resets);
  for (const auto& c : spec.components) {
    if (c.zeno_mode >= 0) add_reset(c.zeno_resets);
  }
  for (const auto& part : spec.parts) {
    set.add(spec.graph, {part.surface});
    set.add(spec.graph, {part.rate_up, part.rate_down});
  }
  return set;
}

// atoms[mode][k][i]: the e and rate of atom i of the mode's transition k, in the order the
// builder's guards hold them (Guard::atoms(): the tree's leaves left to right).
std::shared_ptr<const FileGuardEnclosure::AtomTable> atom_table_of(const ModelSpec& spec) {
  auto table = std::make_shared<FileGuardEnclosure::AtomTable>(spec.modes.size());
  for (const auto& tr : spec.transitions) {
    auto& atoms = (*table)[static_cast<std::size_t>(tr.from)].emplace_back();
    const auto leaves = [&](const auto& self, int index) -> void {
      const GuardNode& node = tr.guard[static_cast<std::size_t>(index)];
      if (node.kind == GuardNode::Kind::kAtom) {
        const AtomSpec& a = tr.atoms[static_cast<std::size_t>(node.atom)];
        atoms.push_back({a.e, a.rate});
        return;
      }
      for (const int child : node.children) self(self, child);
    };
    leaves(leaves, static_cast<int>(tr.guard.size()) - 1);
  }
  return table;
}

// The certified strategy's level 2 reads the field's Jacobian, n^2 derivatives per mode: built
// for models of at most this many states, so that large models compile in linear time.
constexpr std::size_t kFlowMostStates = 16;

// Adds the fields' derivatives to the spec's graph.
std::shared_ptr<const FlowTable> flow_table_of(ModelSpec* spec) {
  if (spec->states.size() > kFlowMostStates) return nullptr;
  std::vector<std::vector<NodeId>> fields;
  for (const auto& mode : spec->modes) fields.push_back(mode.algebraic ? std::vector<NodeId>{} : mode.field);
  return std::make_shared<const FlowTable>(flow_table_of(&spec->graph, fields));
}

// The states each field component reads in some mode: the x and prior(x) leaves below it, by a
// walk of each component's expression that visits a shared node once (linear in the graph for
// a stencil; a `let` that every component reads is walked once per component).
std::shared_ptr<const JacobianPattern> jacobian_pattern_of(const ModelSpec& spec) {
  const std::size_t n = spec.states.size();
  std::vector<std::vector<std::size_t>> reads(n);
  std::vector<std::size_t> seen(spec.graph.size(), 0);
  std::size_t walk = 0;
  std::vector<NodeId> stack;
  for (const auto& mode : spec.modes) {
    if (mode.algebraic) continue;
    for (std::size_t i = 0; i < n && i < mode.field.size(); ++i) {
      ++walk;
      stack.assign(1, mode.field[i]);
      while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        std::size_t& mark = seen[static_cast<std::size_t>(id)];
        if (mark == walk || !spec.graph.reads_state(id)) continue;
        mark = walk;
        const Node& node = spec.graph[id];
        if (node.op == Op::kState || node.op == Op::kPrior) reads[i].push_back(static_cast<std::size_t>(node.index));
        stack.insert(stack.end(), node.args.begin(), node.args.end());
      }
    }
  }
  return std::make_shared<const JacobianPattern>(JacobianPattern::from_reads(reads));
}

// The double type's code is compiled here, so that a file whose code the compiler refuses
// says so when it is read; the other types' when a model in them is first built.
std::shared_ptr<const CompiledModel> compile(ModelSpec spec, const NativeOptions& options) {
  auto compiled = std::make_shared<CompiledModel>();
  compiled->spec = std::move(spec);
  compiled->programs = programs_of(compiled->spec);
  compiled->atom_table = atom_table_of(compiled->spec);
  compiled->flow_table = flow_table_of(&compiled->spec);
  compiled->jacobian_pattern = jacobian_pattern_of(compiled->spec);
  compiled->options = options;
  compiled->backend = compiled->backend_of<double>();
  return compiled;
}

}  // namespace

template <class S>
Model<S> build_model(const ModelSpec& spec, const ParameterValues& values) {
  auto tape_only = std::make_shared<CompiledModel>();
  tape_only->spec = spec;
  tape_only->atom_table = atom_table_of(spec);
  tape_only->flow_table = flow_table_of(&tape_only->spec);
  tape_only->jacobian_pattern = jacobian_pattern_of(tape_only->spec);
  tape_only->options.backend = NativeOptions::Backend::kTape;
  return Builder<S>(tape_only, values).build();
}

ModelEntry model_entry(std::shared_ptr<const ModelSpec> spec, const NativeOptions& options, std::string* backend) {
  auto compiled = compile(*spec, options);
  if (backend != nullptr) *backend = compiled->backend;
  ModelEntry entry;
  entry.name = spec->name;
  entry.summary = spec->description.empty() ? "model file " + spec->file : spec->description;
  entry.source = spec->source.empty() ? spec->file : spec->source + " (" + spec->file + ")";
  for (const auto& p : spec->parameters) entry.parameters.push_back({p.name, p.default_text, p.meaning, p.low, p.high});
  for (const auto& p : spec->presets) {
    Preset preset{p.name, p.description, p.values, 0.0, p.t_end};
    if (!p.t_end.empty()) preset.t_end = parse_decimal<double>(p.t_end, "t_end of preset '" + p.name + "'");
    entry.presets.push_back(std::move(preset));
  }
  entry.make_double = [compiled](const ParameterValues& v) { return Builder<double>(compiled, v).build(); };
  entry.make_long_double = [compiled](const ParameterValues& v) { return Builder<long double>(compiled, v).build(); };
  entry.make_float128 = [compiled](const ParameterValues& v) { return Builder<float128>(compiled, v).build(); };
  return entry;
}

ModelEntry load_model_file(const std::string& path, std::string* warnings, const NativeOptions& options,
                           std::string* backend) {
  auto spec = std::make_shared<const ModelSpec>(compile_file(path));
  if (warnings != nullptr) *warnings = spec->warning_text;
  ModelEntry entry = model_entry(spec, options, backend);
  (void)entry.make<double>(entry.default_values());
  return entry;
}

bool names_model_file(const std::string& argument) {
  return argument.find('/') != std::string::npos ||
         (argument.size() > 4 && argument.compare(argument.size() - 4, 4, ".hym") == 0);
}

template Model<double> build_model<double>(const ModelSpec&, const ParameterValues&);
template Model<long double> build_model<long double>(const ModelSpec&, const ParameterValues&);
template Model<float128> build_model<float128>(const ModelSpec&, const ParameterValues&);

}  // namespace hysim::lang
