// Warnings (nabla/core/warning.h): a handler per thread, the default one printing.
#include "nabla/core/warning.h"

#include <atomic>
#include <iostream>

namespace nabla {
namespace {

WarningHandler& default_handler() {
  static WarningHandler* handler = new WarningHandler();  // never destroyed: used at exit
  return *handler;
}

thread_local WarningHandler* t_handler = nullptr;
std::atomic<bool> g_warn_always{false};

}  // namespace

void WarningHandler::process(const SourceLocation& source_location, const std::string& msg,
                             bool /*verbatim*/) {
  std::cerr << "[W " << source_location.file << ":" << source_location.line << "] Warning: " << msg
            << " (function " << source_location.function << ")\n";
}

WarningHandler* Warning::get_warning_handler() {
  return t_handler ? t_handler : &default_handler();
}

void Warning::set_warning_handler(WarningHandler* handler) { t_handler = handler; }

void Warning::warn(const SourceLocation& source_location, const std::string& msg, bool verbatim) {
  get_warning_handler()->process(source_location, msg, verbatim);
}

namespace WarningUtils {
void set_warnAlways(bool enabled) { g_warn_always.store(enabled, std::memory_order_relaxed); }
bool get_warnAlways() { return g_warn_always.load(std::memory_order_relaxed); }
}  // namespace WarningUtils

}  // namespace nabla
