#include "tools/json_writer.h"

#include <iterator>

#include "tools/escape.h"

namespace tools {

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_->push_back(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  Separate();
  out_->push_back('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_->push_back('}');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  Separate();
  out_->push_back('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_->push_back(']');
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  Separate();
  AppendJsonString(out_, key);
  out_->push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view v) {
  Separate();
  AppendJsonString(out_, v);
  return *this;
}

JsonWriter& JsonWriter::Members(std::string_view members) {
  if (members.empty()) return *this;
  if (first_.back()) members.remove_prefix(1);
  first_.back() = false;
  out_->append(members.data(), members.data() + members.size());
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t v) {
  Separate();
  const fmt::format_int text(v);
  out_->append(text.data(), text.data() + text.size());
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t v) {
  Separate();
  const fmt::format_int text(v);
  out_->append(text.data(), text.data() + text.size());
  return *this;
}

JsonWriter& JsonWriter::Bool(bool v) {
  Separate();
  const std::string_view s = v ? "true" : "false";
  out_->append(s.data(), s.data() + s.size());
  return *this;
}

JsonWriter& JsonWriter::Null() {
  Separate();
  const std::string_view s = "null";
  out_->append(s.data(), s.data() + s.size());
  return *this;
}

}  // namespace tools
