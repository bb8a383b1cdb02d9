#include "tools/increments.h"

namespace tools {

void PutRestorable(JsonWriter& j, const app::Restorable* r) {
  j.Key("restorable");
  if (r == nullptr) {
    j.Null();
  } else if (r->ok) {
    j.Bool(true).Field("restore_from", r->kind);
  } else {
    j.Bool(false).Field("not_restorable", r->why);
  }
}

}  // namespace tools
