#include "libwal/java_text.h"

#include <iterator>
#include <vector>

#include <fmt/format.h>

namespace wal {
namespace {

constexpr char kHex[] = "0123456789abcdef";

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

// Days since 1970-01-01 to a proleptic Gregorian date (the usual era-of-400-years
// arithmetic). Every int64 millisecond count gives |days| < 2^47, far from overflow.
void CivilDate(int64_t days, int64_t* year, int* month, int* day) {
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;                                       // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                     // March = 0
  *day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = yoe + era * 400 + (*month <= 2 ? 1 : 0);
}

void AppendClock(std::string* out, int64_t ms_of_day) {
  fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:{:02}.{:03}", ms_of_day / 3600000, ms_of_day / 60000 % 60,
                 ms_of_day / 1000 % 60, ms_of_day % 1000);
}

constexpr int64_t kMillisPerDay = 86400000;

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  auto cont = [&](size_t k) { return i + k < s.size() && (at(k) & 0xC0) == 0x80; };
  const unsigned char c = at(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && at(1) < 0xA0) return 0;
    if (c == 0xED && at(1) > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && at(1) < 0x90) return 0;
    if (c == 0xF4 && at(1) > 0x8F) return 0;
    return 4;
  }
  return 0;
}

void AppendQuotedString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      *out += "\\x";
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
      ++i;
      continue;
    }
    if (n > 1) {
      out->append(s.data() + i, n);
    } else if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c == '\n') {
      *out += "\\n";
    } else if (c == '\r') {
      *out += "\\r";
    } else if (c == '\t') {
      *out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      *out += "\\u00";
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(static_cast<char>(c));
    }
    i += n;
  }
  out->push_back('"');
}

void AppendQuotedChar(std::string* out, uint16_t c) {
  out->push_back('\'');
  if (c == '\'' || c == '\\') {
    out->push_back('\\');
    out->push_back(static_cast<char>(c));
  } else if (c >= 0x20 && c < 0x7f) {
    out->push_back(static_cast<char>(c));
  } else {
    fmt::format_to(std::back_inserter(*out), "\\u{:04x}", c);
  }
  out->push_back('\'');
}

void AppendInstant(std::string* out, int64_t millis, int32_t nanos, bool nine_digits) {
  int64_t days = millis / kMillisPerDay;
  int64_t ms_of_day = millis % kMillisPerDay;
  if (ms_of_day < 0) {
    ms_of_day += kMillisPerDay;
    --days;
  }
  int64_t year = 0;
  int month = 0, day = 0;
  CivilDate(days, &year, &month, &day);
  if (year >= 0 && year <= 9999) {
    fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}T", year, month, day);
  } else {
    fmt::format_to(std::back_inserter(*out), "{:+05}-{:02}-{:02}T", year, month, day);
  }
  AppendClock(out, ms_of_day);
  if (nine_digits) fmt::format_to(std::back_inserter(*out), "{:06}", nanos);
  out->push_back('Z');
}

void AppendTimeOfDay(std::string* out, int64_t millis) {
  if (millis < 0 || millis >= kMillisPerDay) return AppendInstant(out, millis, 0, false);
  AppendClock(out, millis);
  out->push_back('Z');
}

bool AppendBigDecimal(std::string* out, int32_t scale, std::string_view magnitude) {
  if (magnitude.empty() || magnitude.size() > kMaxDecimalBytes) return false;
  const bool negative = (static_cast<unsigned char>(magnitude[0]) & 0x80) != 0;
  std::vector<uint8_t> mag(magnitude.begin(), magnitude.end());
  mag[0] &= 0x7f;
  // The magnitude in base 10^9 by repeated division, least significant chunk first.
  std::vector<uint32_t> chunks;
  size_t first = 0;
  while (first < mag.size() && mag[first] == 0) ++first;
  while (first < mag.size()) {
    uint64_t rem = 0;
    for (size_t i = first; i < mag.size(); ++i) {
      const uint64_t cur = rem * 256 + mag[i];
      mag[i] = static_cast<uint8_t>(cur / 1000000000);
      rem = cur % 1000000000;
    }
    chunks.push_back(static_cast<uint32_t>(rem));
    while (first < mag.size() && mag[first] == 0) ++first;
  }
  std::string digits = chunks.empty() ? "0" : fmt::format("{}", chunks.back());
  for (size_t i = chunks.size(); i-- > 1;) fmt::format_to(std::back_inserter(digits), "{:09}", chunks[i - 1]);
  const bool zero = chunks.empty();
  if (negative && !zero) out->push_back('-');
  if (scale == 0) {
    *out += digits;
    return true;
  }
  const int64_t len = static_cast<int64_t>(digits.size());
  const int64_t adjusted = -static_cast<int64_t>(scale) + (len - 1);
  if (scale > 0 && adjusted >= -6) {
    // Plain notation; adjusted >= -6 keeps the leading zeros to at most six.
    const int64_t pad = scale - len;
    if (pad >= 0) {
      *out += "0.";
      out->append(static_cast<size_t>(pad), '0');
      *out += digits;
    } else {
      const auto point = static_cast<size_t>(-pad);
      out->append(digits, 0, point);
      out->push_back('.');
      out->append(digits, point);
    }
    return true;
  }
  out->push_back(digits[0]);
  if (digits.size() > 1) {
    out->push_back('.');
    out->append(digits, 1);
  }
  if (adjusted != 0) fmt::format_to(std::back_inserter(*out), "E{}{}", adjusted > 0 ? "+" : "", adjusted);
  return true;
}

}  // namespace wal
