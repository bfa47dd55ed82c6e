// The op table's storage: entries register here at static-initialisation time. Kept apart
// from the test driver so the micro-benchmark (bench/bench_ops.cpp) links the same table.
#include "conformance.h"

namespace conform {

std::vector<OpEntry>& registry() {
  static std::vector<OpEntry> r;
  return r;
}

bool add_entries(std::vector<OpEntry> entries) {
  for (auto& e : entries) registry().push_back(std::move(e));
  return true;
}

Coverage& coverage() {
  static Coverage c;
  return c;
}

}  // namespace conform
