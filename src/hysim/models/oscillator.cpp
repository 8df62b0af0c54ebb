// Damped oscillator from the structural scheme of 001, Figs. 4-5: a velocity feedback k_v,
// a main feedback k_oc, and two integrators with gains k1 and k2.
//
//   x1 = -(k_v x2 + k_oc y1),   dx2/dt = k1 x1,   dy1/dt = k2 x2
//
// Transfer function (001): k1 k2 / (p^2 + k1 k_v p + k1 k2 k_oc). With k_v = 0.10, k_oc = 1,
// k1 = k2 = 20: lambda = -1 +- j sqrt(399) = -1 +- j19.975 (the paper's values), i.e. decay
// rate 1 and damped angular frequency 19.975. y1(0) = 200, x2(0) = 0.
#include "hysim/core/model.hpp"
#include "hysim/models/catalog.hpp"

namespace hysim {

template <class S>
Model<S> make_oscillator(const ParameterValues& values) {
  const S k_v = values.get<S>("k_v");
  const S k_oc = values.get<S>("k_oc");
  const S k1 = values.get<S>("k1");
  const S k2 = values.get<S>("k2");
  Model<S> model;
  model.name = "oscillator";
  model.source = "001, Figs. 4-6";
  model.state_names = {"x2", "y1"};
  model.x0 = {S(0), values.get<S>("y1_0")};
  model.add_mode("linear", [=](S, const S* x, S* dxdt) {
    const S x1 = -(k_v * x[0] + k_oc * x[1]);
    dxdt[0] = k1 * x1;
    dxdt[1] = k2 * x[0];
  }, "two integrators closed by velocity and position feedback");
  model.finalize();
  return model;
}

ModelEntry oscillator_entry() {
  ModelEntry entry;
  entry.name = "oscillator";
  entry.summary = "damped oscillator from a structural scheme: lambda = -1 +- j19.975";
  entry.source = "001 (Shpakov 2016), Figs. 4-6";
  entry.parameters = {
      {"k_v", "0.10", "velocity feedback gain", "0.05", "0.2"},
      {"k_oc", "1", "main feedback gain", "0.5", "2"},
      {"k1", "20", "first integrator gain [1/s]", "10", "40"},
      {"k2", "20", "second integrator gain [1/s]", "10", "40"},
      {"y1_0", "200", "initial output y1(0)", "100", "300"},
  };
  HYSIM_MODEL_BUILDERS(entry, make_oscillator);
  return entry;
}

}  // namespace hysim
