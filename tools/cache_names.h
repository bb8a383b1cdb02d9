// --cache NAME|ID, as data and restore take it: each a name or an id of a cache the input
// has; one it does not have is a usage error listing the caches it has.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/inputs.h"
#include "tools/output.h"

namespace tools {

// `known`: the input's caches by id (empty when it names none). Ignite's ids are matched and
// listed signed, as Ignite prints them. With no cache known, an id is taken as given and,
// of Ignite's input, a name as Ignite's id of it (`ignite`). False, with the error printed,
// when one names no cache.
bool ResolveCacheNames(const std::vector<std::string>& wanted, const std::map<uint32_t, std::string>& known,
                       bool ignite, const std::string& dir, std::vector<uint32_t>* ids, Output& output);

// The caches the inputs name, by id: Ignite's by their directories and configuration
// files (*ignite set), walcut's by the cluster file; empty when nothing names them.
std::map<uint32_t, std::string> KnownCaches(const app::WalInputs& inputs, bool* ignite);

}  // namespace tools
