#pragma once
// Errors: every misuse of the public API raises nabla::Error with a message that
// names the op, what it got and what it expected (docs/reliability.md).
#include <sstream>
#include <stdexcept>
#include <string>

namespace nabla {

/// The one exception type nabla throws for bad input. what() is the message alone.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  /// The message (c10::Error's spelling; nabla's messages carry no backtrace).
  const char* what_without_backtrace() const noexcept { return what(); }
  std::string msg() const { return what(); }
};

namespace detail {
inline void str_append(std::ostringstream&) {}
template <class T, class... Rest>
void str_append(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  str_append(os, rest...);
}
[[noreturn]] void throw_check_failure(const char* cond, const char* file, int line,
                                      const std::string& msg);
[[noreturn]] void throw_assert_failure(const char* cond, const char* file, int line,
                                       const std::string& msg);
}  // namespace detail

/// Concatenates the stream representation of its arguments (c10::str).
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::str_append(os, args...);
  return os.str();
}

}  // namespace nabla

/// Throws nabla::Error with the concatenated message when `cond` is false.
#define NABLA_CHECK(cond, ...)                                                                    \
  do {                                                                                            \
    if (!(cond)) [[unlikely]]                                                                     \
      ::nabla::detail::throw_check_failure(#cond, __FILE__, __LINE__, ::nabla::str(__VA_ARGS__)); \
  } while (0)

/// Internal invariant: a failure is a nabla bug, reported as nabla::Error too.
#define NABLA_ASSERT(cond, ...)                                                                    \
  do {                                                                                             \
    if (!(cond)) [[unlikely]]                                                                      \
      ::nabla::detail::throw_assert_failure(#cond, __FILE__, __LINE__, ::nabla::str(__VA_ARGS__)); \
  } while (0)

/// LibTorch's TORCH_INTERNAL_ASSERT, under the name the port script gives it.
#define NABLA_INTERNAL_ASSERT(cond, ...) NABLA_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)

/// Opt-in LibTorch spellings, so ported code needs no edit beyond the namespace.
#ifdef NABLA_TORCH_COMPAT
#define TORCH_CHECK NABLA_CHECK
#define AT_ASSERT NABLA_ASSERT
#define TORCH_INTERNAL_ASSERT NABLA_INTERNAL_ASSERT
#define TORCH_WARN NABLA_WARN
#define TORCH_WARN_ONCE NABLA_WARN_ONCE
#endif
