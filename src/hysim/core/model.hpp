// The hybrid model: Mosterman's 5-tuple H = <I, X_a, f_a, gamma_a^b, g_a^b> (003, Eq. 1).
//
//   I            the modes, each with a name                         -> Model::modes
//   X_a          one state layout shared by all modes, named         -> Model::state_names
//   f_a          the field of mode a: dx/dt = f_a(t, x)              -> Mode::field
//   gamma_a^b    the guard of a -> b, a boolean tree of atoms        -> Transition::guard
//   g_a^b        the reset x+ = g(x) applied on a -> b               -> Transition::reset
//
// A model is plain data plus std::function callbacks, templated on the scalar S so that the
// same model runs in double, long double or float128 (core/scalar.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hysim/core/guard.hpp"
#include "hysim/core/guard_enclosure.hpp"
#include "hysim/core/jacobian_pattern.hpp"

namespace hysim {

// dx/dt = f_a(t, x): writes state_size() derivatives into dxdt.
template <class S>
using FieldFunction = std::function<void(S t, const S* x, S* dxdt)>;

// x+ = g(x): x_post arrives as a copy of x_pre; the reset overwrites the components it jumps.
template <class S>
using ResetFunction = std::function<void(S t, const S* x_pre, S* x_post)>;

// An edge a -> b of the mode graph.
template <class S>
struct Transition {
  std::string name;            // label of the guard in records, e.g. "p3" or "saw_reset"
  std::string target_name;     // b, by name
  int target = -1;             // b, as an index into Model::modes (set by Model::finalize)
  Guard<S> guard;              // fires when the tree is true
  ResetFunction<S> reset;      // empty: identity
  // A crossing (scipy's event functions, CVODE's root functions; the language's `crossing`):
  // a transition back into its own mode that fires where its guard turns true, not while it
  // stays true. It is armed where its guard reads false, disarmed when it fires or when the
  // mode is entered with its guard already true (events/crossings.hpp).
  bool crossing = false;
  bool stop = false;  // the run ends after the event this transition takes part in (scipy's terminal)
  int part = -1;      // the part it belongs to (Model::parts: a component, a switch part); -1: the model's own
};

// A mode a in I with its field f_a and its outgoing transitions, in priority order: when
// several guards fire at the same point, the first one declared is taken (a documented,
// deterministic order). A mode without a field is algebraic: it can only be a pinnacle or
// mythical (003, Table 1: "no continuous evolution"); a chain that would rest in it is an
// error naming it.
template <class S>
struct Mode {
  std::string name;
  std::string description;
  FieldFunction<S> field;  // empty: algebraic (pinnacle-only) mode
  std::vector<Transition<S>> transitions;
};

// What follows a Zeno accumulation (events accumulating in finite time): at the estimated
// accumulation time t_inf the run enters `mode_name` with x+ = reset(t_inf, x), x the state
// after the last event before t_inf; for the bouncing ball, "at rest on the floor". A model
// without one stops there with RunReason::kZeno.
template <class S>
struct ZenoContinuation {
  std::string mode_name;  // empty: the model declares no continuation
  int mode = -1;          // set by Model::finalize
  ResetFunction<S> reset; // empty: identity
};

// A part of the model that owns transitions (core/components.hpp, core/switch_parts.hpp): its
// events are watched for Zeno on their own, and an accumulation of them continues with the
// part's reset, the run staying in its mode (a component entering its resting mode); without
// one (zeno_reset empty) the run stops there, as for the model's own events.
template <class S>
struct ModelPart {
  std::string name;
  std::string zeno_label;          // the record of its continuation, e.g. "ball.zeno"
  ResetFunction<S> zeno_reset;     // empty: no continuation
};

template <class S>
struct Model {
  std::string name;          // the hysim name, e.g. "pwm-servo"
  std::string source;        // citation of the paper and equations it reproduces
  std::vector<std::string> state_names;
  std::vector<Mode<S>> modes;
  int initial_mode = 0;
  S t0 = S(0);
  std::vector<S> x0;
  // The model's own absolute tolerance of each state (a model file's `state x = 1 atol 1e-12`),
  // NaN where it gives none; empty: none at all. A run's `--atol NAME=VALUE` overrides it.
  std::vector<S> state_atol;
  ZenoContinuation<S> zeno;
  std::vector<ModelPart<S>> parts;  // by Transition::part
  // Interval enclosures of the guards, for the certified strategy (double runs); empty: none
  // (model files give them; a C++ model may).
  GuardEnclosureMaker guard_enclosure;
  // Which states each field component may read, in any mode (core/jacobian_pattern.hpp); null:
  // unknown, every entry may be nonzero. The implicit solvers group the columns of their
  // finite-difference Jacobian by it and factor sparse iteration matrices (docs/solvers.md).
  std::shared_ptr<const JacobianPattern> jacobian_pattern;

  std::size_t state_size() const { return state_names.size(); }

  // Appends a mode; returns its index.
  int add_mode(std::string mode_name, FieldFunction<S> field, std::string description = {});
  // Appends a transition from -> to (by name) with the given guard and optional reset.
  void add_transition(const std::string& from, const std::string& to, std::string guard_name,
                      Guard<S> guard, ResetFunction<S> reset = {});
  // Appends a crossing of `mode` (Transition::crossing): an event named crossing_name where `guard`
  // turns true, the mode kept, the state reset (optional); `stop`: the run ends there.
  void add_crossing(const std::string& mode, std::string crossing_name, Guard<S> guard, ResetFunction<S> reset = {},
                    bool stop = false);

  // Index of the mode with this name, or -1.
  int find_mode(const std::string& mode_name) const;

  // Resolves transition targets by name and checks that the model is well formed: unique
  // mode names, known targets, a field in the initial mode and the Zeno continuation's mode, x0 of the right size, initial mode valid.
  // Throws ModelError naming the model, the mode and the transition at fault.
  void finalize();
};

extern template struct Model<double>;
extern template struct Model<long double>;
extern template struct Model<float128>;

}  // namespace hysim
