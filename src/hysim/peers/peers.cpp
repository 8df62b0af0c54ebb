#include "hysim/peers/peers.hpp"

#include <mutex>

#include "hysim/events/strategy.hpp"
#if HYSIM_HAVE_CVODE
#include "hysim/peers/cvode.hpp"
#endif

namespace hysim {

void register_peers() {
  static std::once_flag once;
  std::call_once(once, [] {
#if HYSIM_HAVE_CVODE
    register_cvode_engines();
    register_strategy(cvode_strategy(CvodeMethod::kBdf));
    register_strategy(cvode_strategy(CvodeMethod::kAdams));
#endif
  });
}

bool have_cvode_peer() { return HYSIM_HAVE_CVODE != 0; }

}  // namespace hysim
