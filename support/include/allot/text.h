// Text from hostile input shown to a person: every message that may quote a
// file name, a key, a value or a source line goes through printable(), so that
// no input can send escape sequences to the operator's terminal. The `allot`
// command also guards its standard streams (guard_standard_streams()), so a
// writer that forgets printable() still cannot.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace allot::support {

// `text` with each control character (C0 except tab and newline, DEL, C1 in
// UTF-8, and the bidi embeddings, overrides and isolates U+202A..U+202E and
// U+2066..U+2069) replaced by one visible code point: U+2400 + c for C0 ("␛"
// for ESC), "␡" for DEL, U+FFFD for C1 and bidi. One code point for one, so
// columns stay where they were. Other bytes, invalid UTF-8 included, stay.
std::string printable(std::string_view text);

// The columns a terminal gives `text` once printed through printable(): one
// per code point (a control shown as its symbol included), two for an East
// Asian wide or full-width character, one for each byte of invalid UTF-8, none
// for a combining mark; a CSI sequence (ESC [ ... final byte) counts nothing, so
// colour a writer put around a cell itself does not count. Tables align by it.
std::size_t display_width(std::string_view text);

// `text` followed (pad_right) or preceded (pad_left) by spaces up to `width`
// columns by display_width(); text already as wide or wider is left as it is.
std::string pad_right(std::string_view text, std::size_t width);
std::string pad_left(std::string_view text, std::size_t width);

// A JSON document as a JSON writer dumped it (UTF-8, C0 controls already
// escaped), with every other character printable() would replace (DEL, C1 and
// the bidi controls) written as a \u escape instead: the same document to any
// JSON parser, and nothing left for a terminal to act on or for the guarded
// streams to change. They can only occur inside strings, so escaping them
// wherever they are is right. Every JSON writer passes its text through this.
std::string json_without_controls(std::string dumped);

// `value` with at most `decimals` decimals and no trailing zeros ("12.5",
// "3", never "-0"): how numbers made of shares and percentages are shown.
std::string format_decimal(double value, int decimals);

// Text safe inside HTML, SVG or XML markup: `&`, `<`, `>` and `"` escaped, the
// rest as it is (pass it through printable() first where control characters
// must not remain, as XML 1.0 forbids them).
std::string escape_html(std::string_view text);

// From now on every byte written to std::cout and std::cerr goes through
// printable() on its way out: the one printing path of the `allot` command,
// which no text writer can bypass by accident. Call once, first thing in main().
void guard_standard_streams();

// The standard output and error without the guard, after flushing the guarded
// stream (so order is kept), for the few writers that must send bytes as they
// are: terminal colour (the writer passes all input text through printable()
// itself) and a file's exact contents to a pipe. Each use says why.
std::ostream& unguarded_stdout();
std::ostream& unguarded_stderr();

}  // namespace allot::support
