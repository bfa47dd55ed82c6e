#include "nabla/core/context.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "nabla/core/error.h"

namespace nabla {

Context& globalContext() {
  static Context context;
  return context;
}

void Context::setFloat32MatmulPrecision(const std::string& precision) {
  NABLA_CHECK(precision == "highest" || precision == "high" || precision == "medium",
              "setFloat32MatmulPrecision: invalid precision \"", precision,
              "\" (expected \"highest\", \"high\" or \"medium\")");
  matmul_precision_ = precision;
}

bool Context::setFlushDenormal(bool on) {
#if defined(__x86_64__) || defined(__i386__)
  const unsigned bits = 0x8040;  // FTZ (bit 15) and DAZ (bit 6) of MXCSR
  _mm_setcsr(on ? (_mm_getcsr() | bits) : (_mm_getcsr() & ~bits));
  return true;
#else
  (void)on;
  return false;
#endif
}

}  // namespace nabla
