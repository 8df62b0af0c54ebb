// The resolver: names to parameters, states and lets; every expression into the model's
// Graph (lang/expressions.hpp); guards normalised by De Morgan's rules into trees of atoms
// e REL 0 with symbolic rates (lang/guards.hpp); and every check of docs/model-language.md,
// "Errors". It collects every error it finds (each with file:line:column) before throwing.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "hysim/core/errors.hpp"
#include "hysim/core/parameters.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/lang/components.hpp"
#include "hysim/lang/expressions.hpp"
#include "hysim/lang/guards.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"

namespace hysim::lang {

namespace {

// The presets: literal values of parameters (and t_end), checked against the name table.
void resolve_presets(const std::vector<PresetSyntax>& presets, ExpressionResolver* expressions, ModelSpec* spec) {
  std::set<std::string> names;
  for (const PresetSyntax& p : presets) {
    if (!names.insert(p.name).second) expressions->error(p.where, "preset '" + p.name + "' is declared twice");
    PresetSpec preset{p.name, p.description, {}, {}};
    std::set<std::string> keys;
    for (const Definition& d : p.values) {
      if (!keys.insert(d.name).second) {
        expressions->error(d.where, "'" + d.name + "' is set twice in preset '" + p.name + "'");
      }
      std::string text;
      if (!literal_text(*d.value, &text)) {
        expressions->error(d.value->where, "a preset sets numbers: '" + d.name + "' needs a literal value");
        continue;
      }
      if (d.name == "t_end") {
        if (expressions->finite_literal(text, d.value->where, "t_end") && parse_decimal<double>(text, "t_end") <= 0) {
          expressions->error(d.value->where, "t_end of preset '" + p.name + "' must be positive");
        }
        preset.t_end = text;
        continue;
      }
      const NameInfo* found = expressions->find_name(d.name);
      if (found == nullptr || found->kind != NameKind::kParameter) {
        std::vector<std::string> parameters = {"t_end"};
        for (const auto& q : spec->parameters) parameters.push_back(q.name);
        const std::string near = closest_name(d.name, parameters);
        expressions->error(d.where, "preset '" + p.name + "' sets '" + d.name + "', which is not a parameter" +
                                        (near.empty() ? "" : "; did you mean '" + near + "'?"));
        continue;
      }
      expressions->finite_literal(text, d.value->where, "parameter '" + d.name + "' in preset '" + p.name + "'");
      preset.values.emplace_back(d.name, text);
    }
    spec->presets.push_back(std::move(preset));
  }
}

// A mode that no transition (nor the Zeno continuation) enters from the initial mode is
// dead text: a warning, since a user may be building the model up.
void warn_unreachable(ModelSpec* spec) {
  std::vector<std::vector<int>> successors(spec->modes.size());  // linear, where a scan per mode was quadratic
  for (const auto& tr : spec->transitions) successors[static_cast<std::size_t>(tr.from)].push_back(tr.to);
  std::vector<bool> reached(spec->modes.size(), false);
  std::vector<int> queue;
  for (const auto& i : spec->initial) {
    if (!reached[static_cast<std::size_t>(i.mode)]) queue.push_back(i.mode);
    reached[static_cast<std::size_t>(i.mode)] = true;
  }
  if (spec->zeno && !reached[static_cast<std::size_t>(spec->zeno->mode)]) {
    reached[static_cast<std::size_t>(spec->zeno->mode)] = true;
    queue.push_back(spec->zeno->mode);
  }
  while (!queue.empty()) {
    const int m = queue.back();
    queue.pop_back();
    for (const int to : successors[static_cast<std::size_t>(m)]) {
      if (reached[static_cast<std::size_t>(to)]) continue;
      reached[static_cast<std::size_t>(to)] = true;
      queue.push_back(to);
    }
  }
  for (std::size_t m = 0; m < spec->modes.size(); ++m) {
    if (reached[m]) continue;
    spec->warnings.push_back(Diagnostic{Severity::kWarning, spec->modes[m].where,
                                        "mode '" + spec->modes[m].name + "' is unreachable from the initial mode" +
                                            (spec->initial.size() > 1 ? "s" : "")});
  }
}

// A declared range: finite ends, low < high, the default inside.
void check_range(const ParameterInfo& p, Location where, ExpressionResolver* expressions) {
  if (p.low.empty() && p.high.empty()) return;
  if (!expressions->finite_literal(p.low, where, "the range of parameter '" + p.name + "'") ||
      !expressions->finite_literal(p.high, where, "the range of parameter '" + p.name + "'")) {
    return;
  }
  try {
    check_parameter_range(ParameterSpec{p.name, p.default_text, p.meaning, p.low, p.high}, "the model file");
  } catch (const Error& e) {
    expressions->error(where, e.what());
  }
}

const Definition* find_definition(const std::vector<Definition>& list, const std::string& name) {
  for (const auto& d : list) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

class Resolver {
 public:
  Resolver(const SourceText& source, const ModelSyntax& syntax)
      : source_(source), syntax_(syntax), expressions_(syntax.lets, &spec_, &errors_),
        components_(syntax, &expressions_, &spec_) {}

  ModelSpec run() {
    spec_.name = syntax_.name;
    spec_.description = syntax_.description;
    spec_.source = syntax_.source;
    spec_.file = source_.name();
    declare_names();
    expressions_.resolve_lets();
    resolve_states();
    resolve_requirements();
    resolve_modes();
    resolve_transitions();
    resolve_zeno();
    resolve_presets(syntax_.presets, &expressions_, &spec_);
    if (!errors_.empty()) throw ModelFileError(source_, std::move(errors_));
    warn_unreachable(&spec_);
    split_switching_modes(&spec_);
    for (const auto& w : spec_.warnings) spec_.warning_text += render(source_, w);
    return std::move(spec_);
  }

 private:
  void error(Location where, std::string message) { expressions_.error(where, std::move(message)); }

  // ---- names ------------------------------------------------------------------------------
  void declare_names() {
    for (std::size_t i = 0; i < syntax_.parameters.size(); ++i) {
      const Definition& d = syntax_.parameters[i];
      if (!expressions_.declare(d.name, d.where, NameKind::kParameter, static_cast<int>(spec_.parameters.size()))) {
        continue;
      }
      std::string text;
      if (!literal_text(*d.value, &text)) {
        error(d.value->where, "the default of parameter '" + d.name +
                                  "' must be a number (a value derived from parameters is a 'let')");
        text = "0";
      }
      expressions_.finite_literal(text, d.value->where, "parameter '" + d.name + "'");
      spec_.parameters.push_back(ParameterInfo{d.name, text, d.description, d.where, d.low, d.high});
      check_range(spec_.parameters.back(), d.range_where, &expressions_);
    }
    for (std::size_t i = 0; i < syntax_.states.size(); ++i) {
      const Definition& d = syntax_.states[i];
      if (!expressions_.declare(d.name, d.where, NameKind::kState, static_cast<int>(spec_.states.size()))) continue;
      spec_.states.push_back(StateInfo{d.name, -1, d.description, d.where, d.atol});
      if (!d.atol.empty() && expressions_.finite_literal(d.atol, d.atol_where, "the atol of state '" + d.name + "'") &&
          !(parse_decimal<double>(d.atol, "atol") > 0)) {
        error(d.atol_where, "the atol of state '" + d.name + "' must be > 0, not " + d.atol);
      }
    }
    components_.declare();  // their states follow the model's
    for (std::size_t i = 0; i < syntax_.lets.size(); ++i) {
      expressions_.declare(syntax_.lets[i].name, syntax_.lets[i].where, NameKind::kLet, static_cast<int>(i));
    }
    if (spec_.states.empty()) error(syntax_.name_where, "the model declares no state: add 'state NAME = VALUE'");
  }

  void resolve_requirements() {
    for (const RequirementSyntax& r : syntax_.requirements) {
      Value v;
      if (!expressions_.expression(*r.condition, Context::kConstant, &v)) continue;
      if (!v.boolean) {
        error(r.condition->where, "'require' takes a condition on the parameters, as in require g > 0, found a number");
        continue;
      }
      spec_.requirements.push_back(RequirementSpec{v.id, spec_.print(v.id), r.message, r.where});
    }
  }

  // ---- states, modes ------------------------------------------------------------------------
  void resolve_states() {
    for (std::size_t i = 0; i < spec_.states.size(); ++i) {
      const Definition* d = find_definition(syntax_.states, spec_.states[i].name);
      if (d == nullptr) continue;  // a component's mode: its initial mode's index
      expressions_.number(*d->value, Context::kConstant, &spec_.states[i].initial,
                          "the initial value of '" + d->name + "'");
    }
  }

  int state_index(const std::string& name, Location where, const char* use) {
    const NameInfo* found = expressions_.find_name(name);
    if (found != nullptr && found->kind == NameKind::kState) return found->index;
    if (found != nullptr) {
      error(where, std::string(use) + " applies to states; '" + name + "' is " +
                       ExpressionResolver::kind_name(found->kind));
    } else {
      std::vector<std::string> states;
      for (const auto& s : spec_.states) states.push_back(s.name);
      const std::string near = closest_name(name, states);
      error(where, std::string(use) + " of an unknown state '" + name + "'" +
                       (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    return -1;
  }

  // der(x) = ... equations into `field`, one per state; a second equation for x is an error.
  void derivatives(const std::vector<Equation>& equations, std::vector<NodeId>* field, const char* block) {
    std::vector<bool> seen(spec_.states.size(), false);
    for (const Equation& eq : equations) {
      const int s = state_index(eq.state, eq.where, "der()");
      if (s < 0) continue;
      if (seen[static_cast<std::size_t>(s)]) {
        error(eq.where, "der(" + eq.state + ") is given twice in " + block);
        continue;
      }
      seen[static_cast<std::size_t>(s)] = true;
      NodeId* derivative = &(*field)[static_cast<std::size_t>(s)];
      if (!expressions_.number(*eq.value, Context::kField, derivative, "der(" + eq.state + ")")) {
        *derivative = spec_.graph.constant("0");  // reported; no follow-up error
      }
    }
  }

  void resolve_modes() {
    std::vector<NodeId> shared(spec_.states.size(), -1);
    derivatives(syntax_.flow, &shared, "the flow block");
    const std::vector<NodeId> owned = components_.fields();
    if (syntax_.modes.empty()) error(syntax_.name_where, "the model declares no mode: add 'mode NAME { ... }'");
    for (const ModeSyntax& m : syntax_.modes) {
      if (mode_index_.count(m.name) != 0) {
        error(m.where, "mode '" + m.name + "' is declared twice (line " +
                           std::to_string(spec_.modes[static_cast<std::size_t>(mode_index_[m.name])].where.line) + ")");
        continue;
      }
      ModeSpec mode{m.name, m.description, m.algebraic, {}, m.where};
      if (!m.algebraic) {
        mode.field = shared;
        derivatives(m.derivatives, &mode.field, ("mode '" + m.name + "'").c_str());
        for (std::size_t s = 0; s < spec_.states.size(); ++s) {
          if (owned[s] >= 0 && mode.field[s] >= 0) {
            error(m.where, "state '" + spec_.states[s].name + "' takes its derivative from component '" +
                               components_.owner(s) + "', not from the flow or mode '" + m.name + "'");
          }
          if (owned[s] >= 0) mode.field[s] = owned[s];
          if (mode.field[s] >= 0) continue;
          error(m.where, "mode '" + m.name + "' gives no derivative for state '" + spec_.states[s].name +
                             "' (write der(" + spec_.states[s].name + ") in the flow block or in the mode, or mark "
                             "the mode algebraic)");
        }
      }
      mode_index_[m.name] = static_cast<int>(spec_.modes.size());
      spec_.modes.push_back(std::move(mode));
    }
    for (const InitialSyntax& i : syntax_.initial) {
      const int mode = mode_of(i.mode, i.where);
      if (mode >= 0 && spec_.modes[static_cast<std::size_t>(mode)].algebraic) {
        error(i.where, "the initial mode '" + i.mode + "' is algebraic: a run cannot rest in it");
      }
      NodeId condition = -1;
      if (i.condition) {
        Value v;
        if (!expressions_.expression(*i.condition, Context::kInitial, &v)) continue;
        if (!v.boolean) {
          error(i.condition->where, "the condition of 'initial " + i.mode + "' must be a comparison, found a number");
          continue;
        }
        condition = v.id;
      }
      if (mode >= 0) spec_.initial.push_back(ModelSpec::Initial{mode, condition, i.where});
    }
    if (spec_.initial.empty() && !spec_.modes.empty()) spec_.initial.push_back(ModelSpec::Initial{0, -1, {}});
  }

  int mode_of(const std::string& name, Location where) {
    const auto found = mode_index_.find(name);
    if (found != mode_index_.end()) return found->second;
    std::vector<std::string> modes;
    for (const auto& m : spec_.modes) modes.push_back(m.name);
    const std::string near = closest_name(name, modes);
    error(where, "unknown mode '" + name + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?"));
    return -1;
  }

  // ---- transitions, zeno ----------------------------------------------------------------------
  std::vector<std::pair<int, NodeId>> resets(const std::vector<Equation>& equations, const std::string& where) {
    std::vector<std::pair<int, NodeId>> out;
    std::set<int> seen;
    for (const Equation& eq : equations) {
      const int s = state_index(eq.state, eq.where, "a reset");
      if (s < 0) continue;
      if (!seen.insert(s).second) {
        error(eq.where, "'" + eq.state + "' is reset twice in " + where);
        continue;
      }
      NodeId value = -1;
      if (expressions_.number(*eq.value, Context::kReset, &value, "the reset of '" + eq.state + "'")) {
        out.emplace_back(s, value);
      }
    }
    return out;
  }

  void resolve_transitions() {
    for (const TransitionSyntax& t : syntax_.transitions) {
      if (t.crossing) {
        resolve_crossing(t);
        continue;
      }
      TransitionSpec tr;
      tr.label = t.label;
      tr.where = t.label_where;
      tr.to = mode_of(t.to, t.to_where);
      const int root = guard_tree(*t.guard, &expressions_, &spec_, &tr);
      tr.resets = resets(t.resets, "transition '" + t.label + "'");
      std::vector<int> sources;
      if (t.from.empty()) {  // "*": every mode, in declaration order
        for (std::size_t m = 0; m < spec_.modes.size(); ++m) sources.push_back(static_cast<int>(m));
      }
      for (const auto& [name, where] : t.from) sources.push_back(mode_of(name, where));
      for (int from : sources) {
        if (from < 0 || tr.to < 0 || root < 0) continue;
        tr.from = from;
        spec_.transitions.push_back(tr);
      }
    }
    components_.transitions([this](const std::vector<Equation>& equations, const std::string& where) {
      return resets(equations, where);
    });
  }

  // crossing LABEL (e) DIRECTION: in each of its modes, a transition back into the mode whose
  // guard is e >= 0 (up: it turns true where e rises through 0) or e <= 0 (down); both: the
  // two, up first.
  void resolve_crossing(const TransitionSyntax& t) {
    const Expression& e = *t.guard;
    const bool condition = (e.kind == Expression::Kind::kUnary && e.op == TokenKind::kNot) ||
                           (e.kind == Expression::Kind::kBinary && e.op >= TokenKind::kLess && e.op <= TokenKind::kOr);
    if (condition) {
      error(e.where, "crossing '" + t.label + "' records where a number crosses zero: write the number, as in " +
                         "crossing " + t.label + " (x - 1) up, not a condition");
      return;
    }
    std::vector<int> modes;
    if (t.from.empty()) {  // every mode with a field
      for (std::size_t m = 0; m < spec_.modes.size(); ++m) {
        if (!spec_.modes[m].algebraic) modes.push_back(static_cast<int>(m));
      }
    }
    for (const auto& [name, where] : t.from) {
      const int m = mode_of(name, where);
      if (m >= 0 && spec_.modes[static_cast<std::size_t>(m)].algebraic) {
        error(where, "crossing '" + t.label + "' is watched in '" + name + "', which is algebraic: nothing crosses there");
      } else if (m >= 0) {
        modes.push_back(m);
      }
    }
    const auto reset = resets(t.resets, "crossing '" + t.label + "'");
    for (const bool up : {true, false}) {
      if (t.direction != (up ? "up" : "down") && t.direction != "both") continue;
      TransitionSpec tr;
      tr.label = t.label;
      tr.where = t.label_where;
      tr.crossing = true;
      tr.stop = t.stop;
      const ExpressionPtr guard = binary_syntax(up ? TokenKind::kGreaterEqual : TokenKind::kLessEqual, copy_syntax(e),
                                                number_syntax("0", e.where), e.where);
      if (guard_tree(*guard, &expressions_, &spec_, &tr) < 0) return;
      tr.resets = reset;
      for (const int m : modes) {
        tr.from = tr.to = m;
        spec_.transitions.push_back(tr);
      }
    }
  }

  void resolve_zeno() {
    if (!syntax_.zeno) return;
    ZenoSpec z;
    z.mode = mode_of(syntax_.zeno->target, syntax_.zeno->where);
    if (z.mode >= 0 && spec_.modes[static_cast<std::size_t>(z.mode)].algebraic) {
      error(syntax_.zeno->where, "the Zeno continuation enters '" + syntax_.zeno->target +
                                     "', which is algebraic: a run must rest in it");
    }
    z.resets = resets(syntax_.zeno->resets, "the zeno continuation");
    if (z.mode >= 0) spec_.zeno = std::move(z);
  }

  const SourceText& source_;
  const ModelSyntax& syntax_;
  ModelSpec spec_;
  std::vector<Diagnostic> errors_;
  ExpressionResolver expressions_;
  std::map<std::string, int> mode_index_;
  ComponentResolver components_;
};

}  // namespace

std::string ModelSpec::print(NodeId id) const {
  return graph.print(id, [this](const Node& n) -> std::string {
    switch (n.op) {
      case Op::kParameter: return parameters[static_cast<std::size_t>(n.index)].name;
      case Op::kState:
      case Op::kPrior: return states[static_cast<std::size_t>(n.index)].name;
      case Op::kFieldValue: return "der(" + states[static_cast<std::size_t>(n.index)].name + ")";
      case Op::kTime: return "t";
      default: return "?";
    }
  });
}

ModelSpec resolve(const SourceText& source, const ModelSyntax& syntax) { return Resolver(source, syntax).run(); }

ModelSpec compile_text(const std::string& name, const std::string& text) {
  // A UTF-8 byte order mark, as some editors save it, is not part of the model: columns count
  // from after it.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  const bool marked = text.compare(0, kByteOrderMark.size(), kByteOrderMark) == 0;
  const SourceText source(name, marked ? text.substr(kByteOrderMark.size()) : text);
  return resolve(source, parse(source));
}

ModelSpec compile_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {  // it would read as an empty file
    throw InvalidArgument("'" + path + "' is a directory, not a model file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument("cannot read the model file '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return compile_text(path, buffer.str());
}

}  // namespace hysim::lang