#include "hysim/lang/build.hpp"

#include "hysim/core/errors.hpp"
#include "hysim/lang/tape.hpp"

namespace hysim::lang {

namespace {

template <class S>
class Builder {
 public:
  Builder(const ModelSpec& spec, const ParameterValues& values) : spec_(spec), n_(static_cast<int>(spec.states.size())) {
    for (const auto& p : spec.parameters) parameters_.push_back(values.get<S>(p.name));
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
    }
    for (const auto& m : spec_.modes) {
      FieldFunction<S> field;
      if (!m.algebraic) {
        auto tape = std::make_shared<const Tape<S>>(spec_.graph, m.field, parameters_, n_);
        field = [tape](S t, const S* x, S* dxdt) { tape->evaluate(t, x, x, nullptr, dxdt); };
      }
      model.add_mode(m.name, std::move(field), m.description);
    }
    model.initial_mode = initial_mode(model.x0);
    for (const auto& tr : spec_.transitions) {
      model.add_transition(spec_.modes[static_cast<std::size_t>(tr.from)].name,
                           spec_.modes[static_cast<std::size_t>(tr.to)].name, tr.label,
                           guard(tr, static_cast<int>(tr.guard.size()) - 1), reset(tr.resets));
    }
    if (spec_.zeno) {
      model.zeno.mode_name = spec_.modes[static_cast<std::size_t>(spec_.zeno->mode)].name;
      model.zeno.reset = reset(spec_.zeno->resets);
    }
    model.finalize();
    return model;
  }

 private:
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
    auto e = std::make_shared<const Tape<S>>(spec_.graph, std::vector<NodeId>{a.e}, parameters_, n_);
    EventFunction<S> value = [e](S t, const S* x) { return e->value(t, x, x, nullptr); };
    EventRate<S> rate;
    if (a.rate >= 0) {
      auto r = std::make_shared<const Tape<S>>(spec_.graph, std::vector<NodeId>{a.rate}, parameters_, n_);
      rate = [r](S t, const S* x, const S* f) { return r->value(t, x, x, f); };
    }
    JumpEventFunction<S> jump;
    if (a.reads_prior) jump = [e](S t, const S* x_prior, const S* x_plus) { return e->jump_value(t, x_plus, x_prior); };
    return Guard<S>::atom(a.name, std::move(value), a.relation, std::move(rate), std::move(jump));
  }

  // x+ = g(x): every right-hand side reads the a priori state (003, invariance of state).
  ResetFunction<S> reset(const std::vector<std::pair<int, NodeId>>& resets) const {
    if (resets.empty()) return {};
    std::vector<NodeId> values;
    auto positions = std::make_shared<std::vector<int>>();
    for (const auto& [state, value] : resets) {
      positions->push_back(state);
      values.push_back(value);
    }
    auto tape = std::make_shared<const Tape<S>>(spec_.graph, values, parameters_, n_);
    return [tape, positions](S t, const S* x_pre, S* x_post) {
      tape->scatter(t, x_pre, x_pre, nullptr, x_post, positions->data());
    };
  }

  const ModelSpec& spec_;
  int n_;
  std::vector<S> parameters_;
};

}  // namespace

template <class S>
Model<S> build_model(const ModelSpec& spec, const ParameterValues& values) {
  return Builder<S>(spec, values).build();
}

ModelEntry model_entry(std::shared_ptr<const ModelSpec> spec) {
  ModelEntry entry;
  entry.name = spec->name;
  entry.summary = spec->description.empty() ? "model file " + spec->file : spec->description;
  entry.source = spec->source.empty() ? spec->file : spec->source + " (" + spec->file + ")";
  for (const auto& p : spec->parameters) entry.parameters.push_back({p.name, p.default_text, p.meaning});
  for (const auto& p : spec->presets) {
    Preset preset{p.name, p.description, p.values, 0.0};
    if (!p.t_end.empty()) preset.t_end = parse_decimal<double>(p.t_end, "t_end of preset '" + p.name + "'");
    entry.presets.push_back(std::move(preset));
  }
  entry.make_double = [spec](const ParameterValues& v) { return build_model<double>(*spec, v); };
  entry.make_long_double = [spec](const ParameterValues& v) { return build_model<long double>(*spec, v); };
  entry.make_float128 = [spec](const ParameterValues& v) { return build_model<float128>(*spec, v); };
  return entry;
}

ModelEntry load_model_file(const std::string& path, std::string* warnings) {
  auto spec = std::make_shared<const ModelSpec>(compile_file(path));
  if (warnings != nullptr) *warnings = spec->warning_text;
  ModelEntry entry = model_entry(spec);
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
