// bench/harness/stop.hpp - stopping a run on SIGINT / SIGTERM: the first
// signal asks the run to stop after the measurement under way (the harness
// then writes its files marked partial and exits 130 / 143); a second one
// ends the process at once by that signal (the files on disk stay valid:
// CSV rows are appended with one write each, JSON and summary.md are
// replaced by rename).
#pragma once

namespace tcore::bench {

/// Installs the handlers for SIGINT and SIGTERM, and ignores SIGPIPE (a
/// closed stdout pipe must not end the run before its files are written).
void install_stop_handlers();
/// The signal that asked the run to stop, or 0.
int stop_signal();
/// Asks the run to stop as if `signal` had arrived (0 clears the request).
void request_stop(int signal);
/// Throws run_interrupted{stop_signal()} if a stop was asked for.
void throw_if_stop_requested();
/// The exit status of a run stopped by `signal`: 128 + signal (130 for SIGINT, 143 for SIGTERM).
inline int stopped_exit_status(int signal) { return 128 + signal; }

}  // namespace tcore::bench
