#pragma once

namespace courier::redrive {

// From now on the first SIGINT or SIGTERM does not end redrive at once: it asks the run to
// stop at the next batch boundary (a transaction it interrupts is aborted), so no transaction
// stays open on the broker, pinning the target partitions' last stable offset. A second
// signal ends the process as before.
void catch_stop_signals();

// True once SIGINT or SIGTERM arrived after catch_stop_signals().
bool stop_signal_arrived();

}  // namespace courier::redrive
