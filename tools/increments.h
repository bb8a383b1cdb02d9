// Whether a cut can be restored now (app/restore_plan.h), as `cuts` and `info` put it in JSON.
#pragma once

#include "app/restore_plan.h"
#include "tools/json_writer.h"

namespace tools {

// "restorable": true and "restore_from", or false and "not_restorable", or null (no `r`).
void PutRestorable(JsonWriter& j, const app::Restorable* r);

}  // namespace tools
