#include "nabla/core/error.h"

namespace nabla::detail {

void throw_check_failure(const char* cond, const char* file, int line, const std::string& msg) {
  if (!msg.empty()) throw Error(msg);
  throw Error(str("Expected ", cond, " to be true, but got false. (", file, ":", line, ")"));
}

void throw_assert_failure(const char* cond, const char* file, int line, const std::string& msg) {
  throw Error(str("internal assertion failed: ", cond, " at ", file, ":", line,
                  msg.empty() ? "" : ": ", msg, " (please report this nabla bug)"));
}

}  // namespace nabla::detail
