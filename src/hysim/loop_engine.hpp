// The simulator's own engine (simulator.hpp; events/engine.hpp, "hysim"): its loop, with a
// solver of solver_catalog() and the chosen strategy's policy.
#pragma once

#include "hysim/events/engine.hpp"

namespace hysim {

// The catalog entry of the simulator's own loop, in every scalar type.
EngineInfo loop_engine_info();

}  // namespace hysim
