// The exponential dy/dt = y, y(0) = 1 (001, Fig. 7 and its rule; the paper reads
// e^3 = 20.086 off its Fig. 8). One mode, no transitions: a check of the integrators.
#include "hysim/core/model.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_exponential(const ParameterValues& values) {
  const S rate = values.get<S>("rate");
  Model<S> model;
  model.name = "exponential";
  model.source = "001, Figs. 7-8";
  model.state_names = {"y"};
  model.x0 = {values.get<S>("y0")};
  model.add_mode("grow", [rate](S, const S* x, S* dxdt) { dxdt[0] = rate * x[0]; }, "dy/dt = rate y");
  model.finalize();
  return model;
}

ModelEntry exponential_entry() {
  ModelEntry entry;
  entry.name = "exponential";
  entry.summary = "dy/dt = y, y(0) = 1: y(t) = e^t";
  entry.source = "001 (Shpakov 2016), Figs. 7-8";
  entry.parameters = {
      {"rate", "1", "growth rate [1/s]", "0.1", "2"},
      {"y0", "1", "initial value", "0.5", "2"},
  };
  HYSIM_MODEL_BUILDERS(entry, make_exponential);
  return entry;
}

}  // namespace hysim
