// Placeholder until the CVODE peer lands: the strategy name is known but not yet runnable.
#include "peers/cvode.hpp"

#include "core/errors.hpp"

namespace hysim {

RunResult<double> run_cvode(const Model<double>&, const SimulationOptions&, Observer<double>*, RunStatistics*) {
  throw InvalidArgument("strategy cvode is not available in this build");
}

}  // namespace hysim
