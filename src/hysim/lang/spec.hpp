// A model file after name resolution and checking: Mosterman's 5-tuple (003, Eq. 1) with
// every expression a node of one Graph. lang/build.hpp turns it into a Model<S> for a
// scalar type and a set of parameter values.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hysim/core/guard.hpp"
#include "hysim/lang/expr.hpp"
#include "hysim/lang/source.hpp"

namespace hysim::lang {

struct ModelSyntax;

struct ParameterInfo {
  std::string name;
  std::string default_text;  // the literal as written (with its sign)
  std::string meaning;
  Location where;
  std::string low{}, high{};  // the declared range as written; both empty: none
};

struct StateInfo {
  std::string name;
  NodeId initial = -1;  // an expression of parameters
  std::string description;
  Location where;
  std::string atol{};  // its own absolute tolerance as written (> 0); empty: the run's atol
};

// A comparison of the guard, normalised to e(t, x) REL 0: "a < b" gives e = a - b (or a when
// b is the literal 0, or b with the relation mirrored when a is). Equalities of `prior`
// values ("prior(v) == v": did v jump?) become discrete atoms that are never located.
struct AtomSpec {
  std::string name;      // e as printed, for records and messages
  NodeId e = -1;
  Relation relation = Relation::kLessEqual;
  NodeId rate = -1;      // de/dt along the field (kFieldValue leaves); -1 for discrete atoms
  bool reads_prior = false;
  bool reads_jumping = false;  // as written (a folded discrete test reads it, but keeps e with nothing jumping)
  NodeId discrete_test = -1;  // discrete atoms: the test (prior(v) == v ...) that holds
  NodeId time_root = -1;      // time events (e = t - K or K - t): K (core/guard.hpp, Atom::time)
  Location where;
};

// The guard as a tree without negations: De Morgan's rules (004, Algorithm 1) have pushed
// every '!' down to a comparison, which flipped its relation.
struct GuardNode {
  enum class Kind { kAtom, kAnd, kOr };
  Kind kind = Kind::kAtom;
  int atom = -1;
  std::vector<int> children;
};

struct TransitionSpec {
  std::string label;
  int from = -1;
  int to = -1;
  std::vector<AtomSpec> atoms;
  std::vector<GuardNode> guard;  // root last
  std::vector<std::pair<int, NodeId>> resets;  // (state, value read on the a priori state)
  Location where;
  bool crossing = false;  // a crossing (to == from; core/model.hpp, Transition::crossing)
  bool stop = false;      // the run ends at it
  int part = -1;          // the component it belongs to (ModelSpec::components); -1: the model's own
};

struct ModeSpec {
  std::string name;
  std::string description;
  bool algebraic = false;
  std::vector<NodeId> field;  // one derivative per state; empty when algebraic
  Location where;
};

// A component (lang/components.cpp): its name and state, and where its own events accumulate
// (Zeno), its continuation: the resets, the last moving the component into zeno_mode (-1: none).
struct ComponentSpec {
  std::string name;
  int state = -1;
  int zeno_mode = -1;
  std::vector<std::pair<int, NodeId>> zeno_resets;
};

// A switch part (core/switch_parts.hpp) made of a condition inside a field: its state, its
// switching function s (side +1 where s >= 0, where the condition holds) and the rate of s along
// the field with the part's sigma at +1 and at -1; reads: the other states those read.
struct PartSpec {
  std::string name;
  int mode = -1;  // the mode it acts in
  int state = -1;
  NodeId surface = -1, rate_up = -1, rate_down = -1;
  std::vector<int> reads;
  Location where;
};

struct PresetSpec {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> values;  // parameter, literal text
  std::string t_end;  // literal text; empty: none
};

struct ZenoSpec {
  int mode = -1;
  std::vector<std::pair<int, NodeId>> resets;
};

// A condition on the parameters alone; a model whose parameter values break it is not built.
struct RequirementSpec {
  NodeId condition = -1;
  std::string text;     // the condition as printed
  std::string message;  // the file's explanation, may be empty
  Location where;
};

struct ModelSpec {
  std::string name;
  std::string description;
  std::string source;
  std::string file;  // the path it was read from
  Graph graph;
  std::vector<ParameterInfo> parameters;
  std::vector<StateInfo> states;
  struct Let {
    std::string name;
    NodeId value = -1;
    Location where;
  };
  std::vector<Let> lets;  // those of parameters alone are checked finite when a model is built
  std::vector<ModeSpec> modes;
  // The initial mode: the first entry whose condition (on the parameters and the initial
  // state) holds; -1: unconditional. No entry: the first mode.
  struct Initial {
    int mode = 0;
    NodeId condition = -1;
    Location where;
  };
  std::vector<Initial> initial;
  std::vector<TransitionSpec> transitions;  // in declaration order (priority within a mode)
  std::vector<ComponentSpec> components;  // by TransitionSpec::part
  std::vector<PartSpec> parts;  // the switch parts of modes' independent conditions (split.cpp)
  std::optional<ZenoSpec> zeno;
  std::vector<PresetSpec> presets;
  std::vector<RequirementSpec> requirements;
  std::vector<Diagnostic> warnings;
  std::string warning_text;  // the warnings rendered with their lines, one after another

  // Prints an expression with this model's names.
  std::string print(NodeId id) const;
};

// The atom of the comparison "a OP b" (OP one of < <= > >=; its negation when `negate`):
// e = a - b, or a when b is the literal 0, or b with the relation mirrored when a is; with its
// rate along the field and, for a time event, its root.
AtomSpec comparison_atom(ModelSpec* spec, Op op, NodeId a, NodeId b, bool negate);

// Splits each mode whose field switches (if, abs, sign, min, max of the state or t) into one
// mode per combination of branches joined by implicit transitions, so that the engine locates
// the switches (lang/split.cpp). Called by resolve().
void split_switching_modes(ModelSpec* spec);

// Resolves names and checks the model; throws ModelFileError listing every error found.
ModelSpec resolve(const SourceText& source, const ModelSyntax& syntax);

// Reads, parses and resolves a file (`text` given: that text under the name `path`).
ModelSpec compile_file(const std::string& path);
ModelSpec compile_text(const std::string& name, const std::string& text);

}  // namespace hysim::lang
