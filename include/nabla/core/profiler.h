#pragma once
// The profiler (docs/autograd.md; LibTorch's torch::autograd::profiler::RecordProfile and
// RECORD_FUNCTION). It lives in core, below every layer that records into it (backend
// kernels, the autograd engine, user code); the namespace is LibTorch's, and
// <nabla/autograd/profiler.h> is the public header that includes this one. One mechanism records
// everything: a RecordFunction is a timed scope, and while a profile runs nabla opens one around
// every backend kernel call (the profiling backend, src/backend/profiling_backend.h) and every
// backward node's apply (the engine). Users open their own with NABLA_RECORD_FUNCTION("name").
//
//   {
//     profiler::ProfilerGuard guard;         // or RecordProfile guard("trace.json");
//     loss = model(x); loss.backward();
//   }
//   std::cout << profiler::table();          // per-op calls / total / self / avg / %
//   profiler::save_chrome_trace("trace.json");  // open in chrome://tracing or Perfetto
//
// Note [Profiler cost when disabled]: with no profile running, a RecordFunction costs one
// relaxed atomic load and a branch, and backend_for() one more; names are not built.
#include <atomic>
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace nabla::autograd::profiler {

namespace detail {
inline std::atomic<bool> g_enabled{false};
}

/// Whether a profile is running (in any thread).
inline bool is_enabled() { return detail::g_enabled.load(std::memory_order_relaxed); }

/// What opened a scope; the Chrome trace "cat" field.
enum class EventKind : uint8_t {
  UserScope,  // NABLA_RECORD_FUNCTION / RecordFunction by name
  Kernel,     // a backend call: "binary.Mul", "gemm", "reduce.Sum", ...
  Backward,   // a backward node's apply: "MulBackward0", "AccumulateGrad", ...
};
const char* kind_name(EventKind kind);

/// One finished scope. Times are nanoseconds since the profile started.
struct Event {
  std::string name;
  EventKind kind = EventKind::UserScope;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  /// duration minus the time spent in scopes nested directly inside it (same thread).
  int64_t self_ns = 0;
  /// Small per-thread id (0, 1, ...), stable for the life of the thread.
  uint32_t thread = 0;
  /// Nesting depth within its thread: 0 for an outermost scope.
  uint32_t depth = 0;
};

/// A timed scope: records an Event from construction to destruction when a profile is
/// running at construction and is still the same profile at destruction; otherwise does
/// nothing (Note [Profiler cost when disabled]).
class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name, EventKind kind = EventKind::UserScope) {
    if (is_enabled()) begin(name, kind);
  }
  /// A scope whose name is costly to build (a backward node's virtual name()): `name()`
  /// is called only when a profile is running.
  template <std::invocable NameFn>
  RecordFunction(EventKind kind, NameFn&& name) {
    if (is_enabled()) begin(std::string_view(std::string(name())), kind);
  }
  ~RecordFunction() {
    if (active_) end();
  }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

 private:
  void begin(std::string_view name, EventKind kind);
  void start();
  void end() noexcept;

  bool active_ = false;
  EventKind kind_ = EventKind::UserScope;
  uint64_t session_ = 0;
  int64_t start_ns_ = 0;
  std::string name_;
};

#define NABLA_PROFILER_CONCAT_(a, b) a##b
#define NABLA_PROFILER_CONCAT(a, b) NABLA_PROFILER_CONCAT_(a, b)
/// Times the rest of the enclosing block as an event named `name`.
#define NABLA_RECORD_FUNCTION(name)                                                         \
  ::nabla::autograd::profiler::RecordFunction NABLA_PROFILER_CONCAT(nabla_record_function_, \
                                                                    __LINE__)(name)

/// Starts a profile: clears the previous results, then records events from every thread
/// until stop() or destruction, which merge the per-thread buffers into the results that
/// events(), table() and chrome_trace_json() read. Profiles do not nest: a nabla::Error
/// if one is already running.
class ProfilerGuard {
 public:
  ProfilerGuard();
  ~ProfilerGuard();
  ProfilerGuard(const ProfilerGuard&) = delete;
  ProfilerGuard& operator=(const ProfilerGuard&) = delete;
  /// Ends the profile early (idempotent).
  void stop();

 private:
  bool running_ = true;
};

/// LibTorch's RecordProfile: a ProfilerGuard that also writes the Chrome trace when it
/// ends, atomically to the file `path` or to `out` (a failure to write is reported on
/// stderr: destructors do not throw).
class RecordProfile {
 public:
  explicit RecordProfile(std::string path) : path_(std::move(path)) {}
  explicit RecordProfile(std::ostream& out) : out_(&out) {}
  ~RecordProfile();
  RecordProfile(const RecordProfile&) = delete;
  RecordProfile& operator=(const RecordProfile&) = delete;

 private:
  std::string path_;
  std::ostream* out_ = nullptr;
  ProfilerGuard guard_;
};

/// The events of the last finished profile, ordered by thread, then start time.
std::vector<Event> events();

/// A per-name summary of the last finished profile: calls, total ms, self ms, average
/// µs per call and the share of the profiled time (sum of self times), sorted by total.
std::string table();

/// The last finished profile in the Chrome trace event format:
/// {"traceEvents":[{"name":..,"cat":..,"ph":"X","ts":µs,"dur":µs,"pid":..,"tid":..},..]}.
std::string chrome_trace_json();

/// Writes chrome_trace_json() to `path` atomically (temp file, fsync, rename); a
/// nabla::Error naming the path if it cannot.
void save_chrome_trace(const std::string& path);

}  // namespace nabla::autograd::profiler
