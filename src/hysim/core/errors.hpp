// The exceptions hysim throws. Expected outcomes of a run (reached t_end, event limit) are
// values in RunResult; exceptions are for bad input and for a run that cannot go on.
#pragma once

#include <stdexcept>
#include <string>

namespace hysim {

// Base class: everything hysim throws derives from it.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A user-supplied value is malformed or out of range (an option, a parameter, a name).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A valid model that the chosen engine cannot run (a peer meets a sliding motion it cannot
// follow): refused, as a bad choice of input is (the program exits 2), with the reason and
// what to run instead.
class UnsupportedModel : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// A model is ill-formed (unknown mode in a transition, wrong state size...).
class ModelError : public Error {
 public:
  using Error::Error;
};

// The run cannot continue: a non-finite value, a step size underflow, a transition chain
// that exceeds its limit or loops. The message says where (model, mode, time, guard).
class SimulationError : public Error {
 public:
  using Error::Error;
};

}  // namespace hysim
