// bench/harness/stop.cpp - the SIGINT / SIGTERM handlers and the stop flag
// (see stop.hpp). The handler only stores the signal and writes one line
// with write(2), which is async-signal-safe.
#include "harness/stop.hpp"

#include "harness/harness.hpp"

#include <csignal>
#include <cstring>
#include <unistd.h>

namespace tcore::bench {

namespace {

volatile std::sig_atomic_t requested = 0;

void on_signal(int sig)
{
    if (requested) {  // the second signal: end now, by the signal's default action
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    requested = sig;
    const char* text = sig == SIGINT ? "\ninterrupted (SIGINT): stopping after the measurement under way and writing "
                                       "the results marked partial; interrupt again to stop at once\n"
                                     : "\nterminated (SIGTERM): stopping after the measurement under way and writing "
                                       "the results marked partial\n";
    const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

}  // namespace

void install_stop_handlers()
{
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // Output piped into a tee that a Ctrl-C ended must not end the run
    // before it writes its files: writes to a closed pipe just fail.
    std::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return requested; }

void request_stop(int signal) { requested = signal; }

void throw_if_stop_requested()
{
    if (const int sig = requested) throw run_interrupted{sig};
}

}  // namespace tcore::bench
