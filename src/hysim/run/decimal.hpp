// A real option as it was given: a double, or decimal text that each run parses in its own
// scalar type, as model parameters are (core/parameters.hpp). `--t-end 0.1` then ends a
// float128 run at the binary128 number nearest to 1/10, not at the double 0.1 widened
// (5.6e-18 away), and a time that double cannot represent at all reaches it exactly.
//
//   options.t_end = 3.0;                                 // a double: S(3.0) in every run
//   options.t_end = "0.1000000000000000000000000001";    // text: the S nearest to it
//
// It reads as its double (the nearest to the text) wherever a double is expected: in
// comparisons, messages, and in the double-only peers. The engine reads it with to<S>().
#pragma once

#include <string>
#include <string_view>

#include "hysim/core/scalar.hpp"

namespace hysim {

class Decimal {
 public:
  Decimal() = default;
  explicit Decimal(double value) : value_(value) {}
  // Keeps the text; the double is the nearest to it (0 or subnormal when it underflows,
  // infinite when it overflows double). Throws InvalidArgument unless the text is a number
  // finite in binary128 (the syntax of parse_decimal: no spaces, nothing after it), naming
  // `what` ("option t_end").
  explicit Decimal(std::string text, std::string_view what = "an option");

  Decimal& operator=(double value) {
    value_ = value;
    text_.clear();
    return *this;
  }
  Decimal& operator=(std::string_view text) { return *this = Decimal(std::string(text)); }
  Decimal& operator=(const char* text) { return *this = std::string_view(text); }

  operator double() const { return value_; }  // NOLINT: reads as a double by design
  double value() const { return value_; }
  // The text as given; empty when the value was set from a double.
  const std::string& text() const { return text_; }

  // The value in S: parse_decimal<S>(text) (correctly rounded; throws InvalidArgument naming
  // `what` when the text under- or overflows S), or S(double) without text.
  template <class S>
  S to(std::string_view what = "an option") const {
    return text_.empty() ? S(value_) : parse_decimal<S>(text_, what);
  }

  // The text when there is one, else the double in the fewest digits that read back to it.
  std::string str() const;
  // The text names another number than the double's shortest decimal ("0.1" and "1e-1" do
  // not; "0.1000000000000000000000000001" does): the reports then write the text.
  bool beyond_double() const;

 private:
  double value_ = 0.0;
  std::string text_;
};

// The reports' JSON (nlohmann's ADL hooks; Json is nlohmann::json): a number, or the text as
// a string when it says more than the double (beyond_double). Either reads back.
template <class Json>
void to_json(Json& json, const Decimal& x) {
  if (x.beyond_double()) {
    json = x.text();
  } else {
    json = x.value();
  }
}
template <class Json>
void from_json(const Json& json, Decimal& x) {
  if (json.is_string()) {
    x = json.template get<std::string>();
  } else {
    x = json.template get<double>();
  }
}

}  // namespace hysim
