#include "hysim/run/result.hpp"

namespace hysim {

const char* transition_class_name(TransitionClass c) {
  switch (c) {
    case TransitionClass::kInterior: return "interior";
    case TransitionClass::kBoundary: return "boundary";
    case TransitionClass::kSliding: return "sliding";
    case TransitionClass::kPinnacle: return "pinnacle";
    case TransitionClass::kMythical: return "mythical";
  }
  return "?";
}

const char* run_reason_name(RunReason reason) {
  switch (reason) {
    case RunReason::kReachedEnd: return "reached t_end";
    case RunReason::kEventLimit: return "event limit";
    case RunReason::kZeno: return "Zeno accumulation";
    case RunReason::kFailed: return "failed";
    case RunReason::kInterrupted: return "interrupted";
    case RunReason::kStopped: return "stopped";
  }
  return "?";
}

const char* step_limit_name(StepLimit limit) {
  switch (limit) {
    case StepLimit::kIntegrator: return "integrator";
    case StepLimit::kFixed: return "fixed";
    case StepLimit::kMaxStep: return "max_step";
    case StepLimit::kGamma: return "gamma";
    case StepLimit::kMinimum: return "minimum";
    case StepLimit::kEvent: return "event";
    case StepLimit::kEnd: return "end";
  }
  return "?";
}

}  // namespace hysim
