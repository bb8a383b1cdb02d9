// Status and Result: how every library layer reports failure. Libraries never throw
// for bad input; the CLI turns a Status into a message and an exit code.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace wal {

enum class StatusCode {
  kOk = 0,
  kCorruption,       // bytes present but wrong (checksum, grammar, impossible value)
  kTruncated,        // bytes missing at the end of input (torn tail)
  kIoError,          // the operating system refused (open, read, write, fsync, rename)
  kNotFound,         // a file, record, cut or node that was asked for does not exist
  kInvalidArgument,  // the caller asked for something malformed
  kNotSupported,     // well-formed but not handled by this version
  kAlreadyExists,    // refusing to overwrite
  kCancelled,        // stopped on request (SIGINT, SIGTERM)
  kInternal,         // a broken invariant of our own
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status Truncated(std::string m) { return {StatusCode::kTruncated, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains its absence.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}                                  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace wal

#define WAL_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::wal::Status wal_status_ = (expr);        \
    if (!wal_status_.ok()) return wal_status_; \
  } while (0)
