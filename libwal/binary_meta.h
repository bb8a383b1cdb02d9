// Apache Ignite's binary metadata (db/binary_meta/<node folder>/<type id>.bin): a binary
// type's name, its fields' names by field id, and its schemas (the field ids of each
// layout an object of the type is written in). With them a binary object's field values
// get their names (cache_object.h).
//
// A .bin file is a binary object of Ignite's BinaryMetadata class: its fields, in order,
// are the type id (int), the type name (String), the fields (a Map from name to a
// BinaryFieldMetadata), the affinity key field's name (String or null) and the schemas
// (a Collection of BinarySchema), then fields not read here. BinaryFieldMetadata and
// BinarySchema are Externalizable, each written by Ignite's OptimizedMarshaller inside
// the binary object (type 0xfe, a length, then 0x65 · i32 class id · i16 · the data):
// the field's type id and field id; the schema's id, its field count and field ids. All
// integers are little-endian.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libwal/status.h"

namespace wal {

struct BinaryType {
  std::string name;
  std::unordered_map<int32_t, std::string> field_names;       // by field id
  std::unordered_map<int32_t, std::vector<int32_t>> schemas;  // field ids, by schema id
};

class BinaryTypes {
 public:
  // Parses one .bin file's bytes; kCorruption (saying what) when they are not binary
  // metadata as above. Nothing is sized by a length in the bytes before it is checked
  // against what is left.
  static Status Parse(std::string_view bytes, int32_t* type_id, BinaryType* out);

  // Reads every <type id>.bin of `dir` (a missing directory holds none); a file that
  // cannot be read or parsed, or whose type id is not its name's, is left out and named,
  // with why, in *problems. A type read again replaces the earlier one.
  void LoadDir(const std::string& dir, std::vector<std::string>* problems);

  void Add(int32_t type_id, BinaryType type) { types_[type_id] = std::move(type); }
  const BinaryType* Find(int32_t type_id) const;
  bool empty() const { return types_.empty(); }

 private:
  std::unordered_map<int32_t, BinaryType> types_;
};

}  // namespace wal
