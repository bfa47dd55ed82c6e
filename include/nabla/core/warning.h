#pragma once
// Warnings: conditions worth telling the user that are not errors (a deprecated spelling,
// a result that may surprise). NABLA_WARN(...) hands the message to the current thread's
// WarningHandler, whose default prints "[W file:line] Warning: message" to stderr; a
// program or a test installs its own to collect or silence them (LibTorch's
// c10::Warning / WarningHandler / TORCH_WARN, spelled nabla::).
//
//   struct Collect : nabla::WarningHandler {
//     std::vector<std::string> seen;
//     void process(const nabla::SourceLocation&, const std::string& msg, bool) override {
//       seen.push_back(msg);
//     }
//   } collect;
//   nabla::WarningUtils::WarningHandlerGuard guard(&collect);
#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>

#include "nabla/core/error.h"
#include "nabla/core/string_utils.h"

namespace nabla {

/// Where a warning was raised.
struct SourceLocation {
  const char* function;
  const char* file;
  uint32_t line;
};

class WarningHandler {
 public:
  virtual ~WarningHandler() = default;
  /// Receives each warning; the default writes it to stderr.
  virtual void process(const SourceLocation& source_location, const std::string& msg,
                       bool verbatim);
};

class Warning {
 public:
  /// The current thread's handler (the default one unless a program set another).
  static WarningHandler* get_warning_handler();
  /// Sets the current thread's handler; nullptr restores the default.
  static void set_warning_handler(WarningHandler* handler);
  /// Hands one warning to the current thread's handler.
  static void warn(const SourceLocation& source_location, const std::string& msg,
                   bool verbatim = false);
  /// Sets WarningUtils' warnAlways for its lifetime.
  class WarnAlways;
};

namespace WarningUtils {
/// Installs a handler for its lifetime.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler* handler) : prev_(Warning::get_warning_handler()) {
    Warning::set_warning_handler(handler);
  }
  ~WarningHandlerGuard() { Warning::set_warning_handler(prev_); }
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler* prev_;
};
/// When set, NABLA_WARN_ONCE warns every time (PyTorch's warnAlways).
void set_warnAlways(bool enabled);
bool get_warnAlways();
}  // namespace WarningUtils

class Warning::WarnAlways {
 public:
  explicit WarnAlways(bool setting = true) : prev_(WarningUtils::get_warnAlways()) {
    WarningUtils::set_warnAlways(setting);
  }
  ~WarnAlways() { WarningUtils::set_warnAlways(prev_); }
  WarnAlways(const WarnAlways&) = delete;
  WarnAlways& operator=(const WarnAlways&) = delete;

 private:
  bool prev_;
};

}  // namespace nabla

/// Warns with the concatenated message (TORCH_WARN).
#define NABLA_WARN(...)                                                         \
  ::nabla::Warning::warn({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, \
                         ::nabla::str(__VA_ARGS__))

/// Warns the first time this line runs in the process (every time under warnAlways).
#define NABLA_WARN_ONCE(...)                                                           \
  do {                                                                                 \
    static std::atomic<bool> nabla_warned_once_{false};                                \
    if (!nabla_warned_once_.exchange(true) || ::nabla::WarningUtils::get_warnAlways()) \
      NABLA_WARN(__VA_ARGS__);                                                         \
  } while (0)
