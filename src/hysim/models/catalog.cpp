#include "hysim/models/catalog.hpp"

#include "hysim/core/errors.hpp"
#include "hysim/models/ball_incline.hpp"
#include "hysim/models/cam_follower.hpp"
#include "hysim/models/diode_inductor.hpp"
#include "hysim/models/falling_rod.hpp"
#include "hysim/models/stick_slip.hpp"

namespace hysim {

const std::vector<ModelEntry>& model_catalog() {
  static const std::vector<ModelEntry> catalog = {
      pwm_servo_entry(),
      bouncing_ball_entry(),
      exponential_entry(),
      oscillator_entry(),
      grazing_entry(),
      drag_ball_entry(),
      falling_rod_entry(),
      diode_inductor_entry(),
      cam_follower_entry(),
      ball_incline_entry(),
      stick_slip_entry(),
      stiff_relay_entry(),
  };
  return catalog;
}

const ModelEntry& find_model(std::string_view name) {
  std::string known;
  for (const auto& entry : model_catalog()) {
    if (entry.name == name) return entry;
    known += (known.empty() ? "" : ", ") + entry.name;
  }
  throw InvalidArgument("unknown model '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace hysim
