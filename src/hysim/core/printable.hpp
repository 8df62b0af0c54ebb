// Text from files and paths as it may reach a terminal: names, descriptions and paths read
// from a model file, a rule table or the command line can hold control bytes (an ESC starts a
// sequence that recolours, moves the cursor or retitles the window), so every such string is
// rendered printable before it is printed or quoted in a message.
#pragma once

#include <string>
#include <string_view>

namespace hysim {

// `text` with C0 controls (U+0000-U+001F), DEL and C1 controls (U+0080-U+009F) written as
// \xNN escapes (ESC: \x1b, U+009B: \u009b), and each byte of malformed UTF-8 as \xNN. Valid
// UTF-8 (Cyrillic names included) and backslashes stay as they are. `keep` lists the controls
// that stay (e.g. "\n\t" for a message of several lines whose lines are already printable).
std::string printable(std::string_view text, std::string_view keep = {});

// printable(text, "\n\t"): a rendered message of several lines, tabs kept for its carets.
inline std::string printable_lines(std::string_view text) { return printable(text, "\n\t"); }

}  // namespace hysim
