// Reference solutions: the exact (or high-precision) events of a model, against which
// `hysim compare`, `hysim workprecision` and the tests measure a run.
//
// A model that has one sets ModelEntry::reference. The values are float128 (113-bit
// significand, about 34 digits), computed from closed forms or in higher precision and
// rounded once; that is far below the errors of double and long double runs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hysim/core/parameters.hpp"
#include "hysim/core/scalar.hpp"

namespace hysim {

// One event of the reference: the first transition taken at time t.
struct ReferenceEvent {
  float128 t = 0;
  std::string from;            // mode left
  std::string to;              // mode entered (after the whole chain at t)
  std::string guard;           // name of the transition that fired first
  std::vector<float128> x;     // state at the event, pre-jump, in the model's state layout
};

struct Reference {
  std::string method;                 // one line: how it was computed ("closed form", ...)
  std::vector<ReferenceEvent> events;  // every event with t in (t0, t_end], in time order
};

// Computes the reference for the given parameter values over (t0, t_end]. Throws
// InvalidArgument when the parameters are outside what the reference covers.
using ReferenceFunction = std::function<Reference(const ParameterValues& values, double t_end)>;

}  // namespace hysim
