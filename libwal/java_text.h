// Java values, as Ignite's binary format stores them, spelled as walcut prints them
// inside a cache object's text (cache_object.h): strings and chars quoted and escaped,
// dates in ISO 8601 (UTC), BigDecimal as Java's toString spells it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wal {

// The length of the valid UTF-8 sequence that starts at s[i] (1 for ASCII), 0 when none
// starts there (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF).
size_t Utf8SequenceLength(std::string_view s, size_t i);

// `bytes` (UTF-8, as Ignite writes a String) between double quotes: printable ASCII and
// valid multi-byte UTF-8 as they are; `"` and `\` after a backslash; \n, \r, \t; other
// control characters \u00NN; each byte that is not part of valid UTF-8 \xNN. So the text
// holds no raw control byte and the string's bytes can be recovered from it.
void AppendQuotedString(std::string* out, std::string_view bytes);

// A Java char (a UTF-16 unit) between single quotes: printable ASCII as itself (`'` and
// `\` after a backslash), any other \uNNNN.
void AppendQuotedChar(std::string* out, uint16_t c);

// Milliseconds since the epoch (java.util.Date's) as "2024-05-01T12:30:00.250Z", with
// `nanos` (0 to 999999, below the millisecond) "...00.250000017Z" when `nine_digits`.
// Years outside 0..9999 carry a sign ("+10000-...", "-0001-...").
void AppendInstant(std::string* out, int64_t millis, int32_t nanos, bool nine_digits);

// The time of day of java.sql.Time's milliseconds, "12:30:00.250Z", when they fall on
// 1970-01-01 (as a Time's do); any other instant as AppendInstant writes it.
void AppendTimeOfDay(std::string* out, int64_t millis);

// A BigDecimal written by Ignite: `scale`, then the unscaled value's magnitude
// big-endian with the sign in the top bit of its first byte. Appends what Java's
// BigDecimal.toString gives ("12.50", "1.2E+7", "-0.001"); false, appending nothing,
// when the magnitude is empty or longer than kMaxDecimalBytes.
inline constexpr size_t kMaxDecimalBytes = 128;
bool AppendBigDecimal(std::string* out, int32_t scale, std::string_view magnitude);

}  // namespace wal
