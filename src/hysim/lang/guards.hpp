// The resolver's guards (lang/resolve.cpp): a guard expression into a transition's tree of
// atoms e REL 0 with symbolic rates (lang/spec.hpp, AtomSpec and GuardNode).
#pragma once

#include "hysim/lang/expressions.hpp"
#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"

namespace hysim::lang {

// Builds tr's guard from `guard`, normalised by De Morgan's rules, with the discrete atoms
// that hold during continuous evolution folded into their neighbours; returns the index of
// its root in tr->guard, or -1 with the errors recorded by `expressions`.
int guard_tree(const Expression& guard, ExpressionResolver* expressions, ModelSpec* spec, TransitionSpec* tr);

}  // namespace hysim::lang
