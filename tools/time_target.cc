#include "tools/time_target.h"

#include <cctype>
#include <cstdio>

#include <fmt/format.h>

namespace tools {
namespace {

constexpr uint64_t kSecond = 1000000000ULL;

// Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (y >= 1970).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = y / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = z / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool done() const { return i_ == s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool Eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  // Exactly `n` digits.
  bool Digits(size_t n, unsigned* out) {
    unsigned v = 0;
    for (size_t k = 0; k < n; ++k) {
      if (!std::isdigit(static_cast<unsigned char>(peek()))) return false;
      v = v * 10 + static_cast<unsigned>(s_[i_++] - '0');
    }
    *out = v;
    return true;
  }
  // One or more digits, at most 18.
  bool Number(uint64_t* out, size_t* count = nullptr) {
    size_t n = 0;
    uint64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      if (++n > 18) return false;
      v = v * 10 + static_cast<uint64_t>(s_[i_++] - '0');
    }
    *out = v;
    if (count != nullptr) *count = n;
    return n > 0;
  }
  // A fraction after the point, as nanoseconds (up to nine digits).
  bool Fraction(uint64_t* ns) {
    uint64_t v = 0;
    size_t n = 0;
    if (!Number(&v, &n) || n > 9) return false;
    for (size_t k = n; k < 9; ++k) v *= 10;
    *ns = v;
    return true;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

bool ParseRelative(std::string_view text, TimeTarget* out, std::string* why) {
  Scanner s(text.substr(1));
  uint64_t total = 0;
  bool any = false;
  while (!s.done()) {
    uint64_t n = 0;
    if (!s.Number(&n)) break;
    uint64_t unit = 0;
    if (s.Eat('m')) {
      unit = s.Eat('s') ? kSecond / 1000 : 60 * kSecond;
    } else if (s.Eat('s')) {
      unit = kSecond;
    } else if (s.Eat('h')) {
      unit = 3600 * kSecond;
    } else if (s.Eat('d')) {
      unit = 86400 * kSecond;
    } else {
      break;
    }
    if (n > (UINT64_MAX - total) / unit) {
      *why = "too far back";
      return false;
    }
    total += n * unit;
    any = true;
  }
  if (!s.done() || !any) {
    *why = "a time back from the latest is a minus sign and numbers with units, as -3h, -1h30m or -500ms";
    return false;
  }
  out->relative = true;
  out->back = total;
  return true;
}

}  // namespace

bool ParseTimeTarget(std::string_view text, TimeTarget* out, std::string* why) {
  *out = TimeTarget();
  out->text = std::string(text);
  if (text.empty()) {
    *why = "empty";
    return false;
  }
  if (text[0] == '-') return ParseRelative(text, out, why);
  Scanner s(text);
  unsigned y = 0, mo = 0, d = 0;
  Scanner iso(text);
  if (iso.Digits(4, &y) && iso.Eat('-')) {
    const std::string form = "an ISO 8601 time is YYYY-MM-DD[THH:MM[:SS[.F]]][Z|+HH:MM|-HH:MM]";
    if (!iso.Digits(2, &mo) || !iso.Eat('-') || !iso.Digits(2, &d) || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
        d > 31) {
      *why = form + " (from 1970)";
      return false;
    }
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (d > kDays[mo - 1] + (mo == 2 && leap ? 1 : 0)) {
      *why = fmt::format("{:04}-{:02} has no day {}", y, mo, d);
      return false;
    }
    unsigned h = 0, mi = 0, sec = 0;
    uint64_t frac = 0;
    if (iso.Eat('T') || iso.Eat(' ')) {
      if (!iso.Digits(2, &h) || !iso.Eat(':') || !iso.Digits(2, &mi) || h > 23 || mi > 59) {
        *why = form;
        return false;
      }
      if (iso.Eat(':') && (!iso.Digits(2, &sec) || sec > 60 || (iso.Eat('.') && !iso.Fraction(&frac)))) {
        *why = form;
        return false;
      }
    }
    int64_t offset = 0;  // seconds east of UTC
    if (iso.Eat('Z')) {
    } else if (iso.peek() == '+' || iso.peek() == '-') {
      const int sign = iso.Eat('-') ? -1 : (iso.Eat('+'), 1);
      unsigned oh = 0, om = 0;
      if (!iso.Digits(2, &oh) || !iso.Eat(':') || !iso.Digits(2, &om) || oh > 23 || om > 59) {
        *why = form;
        return false;
      }
      offset = sign * static_cast<int64_t>(oh * 3600 + om * 60);
    }
    if (!iso.done()) {
      *why = form;
      return false;
    }
    const int64_t days = DaysFromCivil(y, mo, d);
    const int64_t secs = days * 86400 + int64_t{h} * 3600 + int64_t{mi} * 60 + sec - offset;
    if (secs < 0) {
      *why = "before the epoch (1970-01-01T00:00:00Z)";
      return false;
    }
    if (static_cast<uint64_t>(secs) >= UINT64_MAX / kSecond) {  // nanoseconds in 64 bits
      *why = "after 2554-07-21T23:34:33Z, the last time of 64-bit nanoseconds";
      return false;
    }
    out->at = static_cast<uint64_t>(secs) * kSecond + frac;
    return true;
  }
  uint64_t whole = 0, frac = 0;
  if (!s.Number(&whole) || (s.Eat('.') && !s.Fraction(&frac)) || !s.done() || whole > UINT64_MAX / kSecond - 1) {
    *why = "not seconds (0.5), an ISO 8601 time (2026-12-04T10:00:00Z) or a time back from the latest (-3h)";
    return false;
  }
  out->at = whole * kSecond + frac;
  return true;
}

uint64_t ResolveTime(const TimeTarget& t, uint64_t latest) {
  if (!t.relative) return t.at;
  return t.back >= latest ? 0 : latest - t.back;
}

std::string FormatIsoTime(uint64_t ns) {
  const uint64_t secs = ns / kSecond;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(static_cast<int64_t>(secs / 86400), &y, &m, &d);
  const uint64_t rem = secs % 86400;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", y, m, d, rem / 3600, rem / 60 % 60, rem % 60,
                     ns % kSecond);
}

}  // namespace tools
