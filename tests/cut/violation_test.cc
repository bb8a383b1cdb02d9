// The vocabulary of violations: one row per kind, names that parse back, and
// walcut-check(1) explaining every kind under VIOLATIONS (and naming nothing else there).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "libcut/violation.h"

namespace cut {
namespace {

TEST(Violation, EveryKindHasANameThatParsesBackAndARule) {
  std::set<std::string> names;
  for (int i = 0; i < kKindCount; ++i) {
    const Kind k = static_cast<Kind>(i);
    const std::string name = KindName(k);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    ASSERT_EQ(ParseKind(name), k) << name;
    EXPECT_GT(std::string(KindRule(k)).size(), 20u) << name;
  }
  EXPECT_FALSE(ParseKind("side_mismatch"));
  EXPECT_FALSE(ParseKind(""));
  EXPECT_TRUE(IsLocalKind(Kind::kKeyOrder));
  EXPECT_FALSE(IsLocalKind(Kind::kSideMismatch));
}

// The names listed as `.TP` / `.B name` items of the page's VIOLATIONS section.
std::set<std::string> ManPageViolations(std::string* whole) {
  std::ifstream in(std::string(WALCUT_SOURCE_DIR) + "/man/walcut-check.1");
  std::stringstream ss;
  ss << in.rdbuf();
  *whole = ss.str();
  std::set<std::string> out;
  std::istringstream lines(*whole);
  std::string line, prev;
  bool inside = false;
  while (std::getline(lines, line)) {
    if (line.rfind(".SH", 0) == 0) inside = line == ".SH VIOLATIONS";
    if (inside && prev == ".TP" && line.rfind(".B ", 0) == 0) {
      std::string name = line.substr(3);
      for (size_t p; (p = name.find("\\-")) != std::string::npos;) name.replace(p, 2, "-");
      out.insert(name);
    }
    prev = line;
  }
  return out;
}

TEST(Violation, TheManPageExplainsEveryKindAndNoOther) {
  std::string page;
  const std::set<std::string> listed = ManPageViolations(&page);
  ASSERT_FALSE(listed.empty()) << "no VIOLATIONS section in walcut-check.1";
  for (const auto& name : listed) EXPECT_TRUE(ParseKind(name)) << name << " is in the page but is no kind";
  for (int i = 0; i < kKindCount; ++i) {
    const Kind k = static_cast<Kind>(i);
    std::string escaped;
    for (char c : std::string(KindName(k))) escaped += c == '-' ? std::string("\\-") : std::string(1, c);
    if (k == Kind::kReadErrors || k == Kind::kNotGiven) {
      // A node's problems as a whole: explained with the JSON problems list.
      EXPECT_NE(page.find(escaped), std::string::npos) << KindName(k);
    } else {
      EXPECT_EQ(listed.count(KindName(k)), 1u) << KindName(k) << " is not explained under VIOLATIONS";
    }
  }
}

}  // namespace
}  // namespace cut
