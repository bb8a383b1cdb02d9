#include "libwal/status.h"

namespace wal {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kTruncated: return "truncated";
    case StatusCode::kIoError: return "i/o error";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kAlreadyExists: return "already exists";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

}  // namespace wal
