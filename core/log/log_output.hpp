#pragma once

#include <cstdio>
#include <functional>

#include "core/log/line_format.hpp"
#include "core/log/terminal_sink.hpp"

// Where and how log::event writes (defined in json_log.cpp, which owns the logger).
namespace courier::log {

// The format of the lines from now on. Until it is called: `auto` for stderr (human on a
// terminal, JSON otherwise).
void set_format(line_format format);

// The FILE the lines go to (stderr unless a test says otherwise).
void set_output(std::FILE* out);

// A footer kept on the bottom line below the log lines, until remove_footer.
void set_footer(footer f);
void remove_footer();

// Runs `draw` under the logger's lock (the footer's owner redrawing it).
void with_output_locked(const std::function<void()>& draw);

}  // namespace courier::log
