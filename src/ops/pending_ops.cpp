// TEMPORARY: ops whose real implementation is in progress; removed as each file lands.
#include <ostream>

#include "ops/op_utils.h"

namespace nabla {

}  // namespace nabla
