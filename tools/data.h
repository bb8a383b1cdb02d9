// `walcut data`: the contents of partition data files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/data_rows.h"
#include "tools/output.h"

namespace tools {

struct DataOptions {
  std::vector<std::string> paths;  // one of walcut's; Apache Ignite's page stores, several
  std::string snapshot;            // Ignite: the full snapshot a work directory holds
  std::vector<std::string> nodes;
  std::vector<std::string> caches;  // names or ids
  std::optional<uint32_t> partition;
  bool json = false;
  DataFormat format = DataFormat::kText;  // --format (--json: kJson)
  bool quiet = false;
  bool summary = false;  // no entries, one line per partition file
  bool Rows() const { return format == DataFormat::kJsonl || format == DataFormat::kCsv; }
};

int RunData(const DataOptions& options, Output& output);
// The same of Apache Ignite's page files (a full snapshot, a stopped node's store).
int RunIgniteData(const DataOptions& options, Output& output);

}  // namespace tools
