// Peers: engines that bring their own integrator and root finder, plugged into the engine
// catalog (events/engine.hpp) and their strategies into the strategy catalog
// (events/strategy.hpp) from here, so that the engine does not depend on
// them. Built when their library is found: "cvode" and "cvode-adams" need SUNDIALS 6
// (libsundials-dev).
#pragma once

namespace hysim {

// Registers every peer this build has (idempotent). Programs call it once at startup, before
// they list or run strategies.
void register_peers();

// Whether this build has the CVODE peer.
bool have_cvode_peer();

}  // namespace hysim
