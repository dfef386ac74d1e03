#include "cluster/MpiWait.hpp"

namespace splitstep {

void waitForRequest(Watchdog& watchdog, MPI_Request& request, const std::string& waiting_for) {
  watchdog.waitUntil(
      [&request] {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        return done != 0;
      },
      waiting_for);
}

}  // namespace splitstep
