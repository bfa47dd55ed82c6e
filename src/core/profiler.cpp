// The profiler's event collection and reports (include/nabla/core/profiler.h).
//
// Note [Profiler sessions]: each thread appends finished events to its own buffer (its
// mutex is uncontended except while a profile ends). Starting and stopping a profile bump
// a session counter; a scope keeps the session it began in, and its event is kept only
// if that is still the current session when it ends, checked under the buffer's mutex.
// stop() bumps the counter before it takes each buffer's mutex to collect, so an event is
// either collected by the profile it belongs to or dropped, never left for the next one.
#include "nabla/core/profiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include <unistd.h>

#include "nabla/core/detail/atomic_file.h"
#include "nabla/core/error.h"

namespace nabla::autograd::profiler {
namespace {

struct ThreadBuffer {
  std::mutex mu;
  std::vector<Event> events;  // start_ns absolute until the profile ends
  uint32_t thread = 0;
};

struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  std::vector<Event> results;  // the last finished profile
  bool running = false;
  int64_t origin_ns = 0;
};

// Leaked on purpose: threads may still end scopes while static objects are destroyed.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::atomic<uint64_t> g_session{0};
std::atomic<uint32_t> g_next_thread{0};

struct ThreadState {
  std::shared_ptr<ThreadBuffer> buffer;
  uint32_t depth = 0;
  // child_ns[d]: time spent in finished scopes at depth d since the enclosing scope (at
  // depth d - 1) began; what that scope subtracts to get its self time.
  std::vector<int64_t> child_ns;
};
thread_local ThreadState t_state;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ThreadBuffer& thread_buffer() {
  ThreadState& ts = t_state;
  if (!ts.buffer) {
    auto buf = std::make_shared<ThreadBuffer>();
    buf->thread = g_next_thread.fetch_add(1, std::memory_order_relaxed);
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.buffers.push_back(buf);
    ts.buffer = std::move(buf);
  }
  return *ts.buffer;
}

void start_session() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  NABLA_CHECK(!r.running, "ProfilerGuard: a profile is already running (profiles do not nest)");
  r.running = true;
  r.results.clear();
  g_session.fetch_add(1, std::memory_order_seq_cst);
  // Drop the buffers of threads that have exited (only the registry still holds them).
  auto gone = [](const std::shared_ptr<ThreadBuffer>& b) { return b.use_count() == 1; };
  r.buffers.erase(std::remove_if(r.buffers.begin(), r.buffers.end(), gone), r.buffers.end());
  for (auto& b : r.buffers) {
    std::lock_guard<std::mutex> block(b->mu);
    b->events.clear();
  }
  r.origin_ns = now_ns();
  detail::g_enabled.store(true, std::memory_order_release);
}

void stop_session() {
  detail::g_enabled.store(false, std::memory_order_relaxed);
  g_session.fetch_add(1, std::memory_order_seq_cst);  // Note [Profiler sessions]
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<Event> all;
  for (auto& b : r.buffers) {
    std::lock_guard<std::mutex> block(b->mu);
    std::move(b->events.begin(), b->events.end(), std::back_inserter(all));
    b->events.clear();
  }
  for (Event& e : all) e.start_ns -= r.origin_ns;
  std::sort(all.begin(), all.end(), [](const Event& a, const Event& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.depth < b.depth;  // an enclosing scope first
  });
  r.results = std::move(all);
  r.running = false;
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace

const char* kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::UserScope:
      return "user_scope";
    case EventKind::Kernel:
      return "kernel";
    case EventKind::Backward:
      return "backward";
  }
  return "unknown";
}

// ---- RecordFunction ------------------------------------------------------------------

void RecordFunction::begin(std::string_view name, EventKind kind) {
  name_.assign(name.data(), name.size());
  kind_ = kind;
  start();
}

void RecordFunction::start() {
  session_ = g_session.load(std::memory_order_acquire);
  ThreadState& ts = t_state;
  uint32_t depth = ts.depth++;
  if (ts.child_ns.size() < depth + 2) ts.child_ns.resize(depth + 2, 0);
  ts.child_ns[depth + 1] = 0;
  active_ = true;
  start_ns_ = now_ns();  // last, so the bookkeeping above is not timed
}

void RecordFunction::end() noexcept {
  int64_t end_ns = now_ns();
  ThreadState& ts = t_state;
  uint32_t depth = --ts.depth;
  int64_t duration = end_ns - start_ns_;
  int64_t self = duration - ts.child_ns[depth + 1];
  ts.child_ns[depth] += duration;
  try {
    ThreadBuffer& buf = thread_buffer();
    std::lock_guard<std::mutex> lock(buf.mu);
    if (g_session.load(std::memory_order_acquire) != session_) return;
    buf.events.push_back(
        Event{std::move(name_), kind_, start_ns_, duration, self, buf.thread, depth});
  } catch (...) {
    // Out of memory while profiling: drop this event rather than terminate.
  }
}

// ---- Guards ---------------------------------------------------------------------------

ProfilerGuard::ProfilerGuard() { start_session(); }

ProfilerGuard::~ProfilerGuard() { stop(); }

void ProfilerGuard::stop() {
  if (!running_) return;
  running_ = false;
  stop_session();
}

RecordProfile::~RecordProfile() {
  guard_.stop();
  try {
    if (out_)
      *out_ << chrome_trace_json();
    else
      save_chrome_trace(path_);
  } catch (const std::exception& e) {
    std::cerr << "nabla: RecordProfile could not write the trace: " << e.what() << '\n';
  }
}

// ---- Reports --------------------------------------------------------------------------

std::vector<Event> events() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.results;
}

std::string table() {
  struct Row {
    int64_t calls = 0, total_ns = 0, self_ns = 0;
  };
  std::vector<Event> evs = events();
  std::map<std::string, Row> by_name;
  std::set<uint32_t> threads;
  int64_t profiled_ns = 0;  // sum of self times = time covered by outermost scopes
  for (const Event& e : evs) {
    Row& row = by_name[e.name];
    row.calls++;
    row.total_ns += e.duration_ns;
    row.self_ns += e.self_ns;
    profiled_ns += e.self_ns;
    threads.insert(e.thread);
  }
  std::vector<std::pair<std::string, Row>> rows(by_name.begin(), by_name.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });
  size_t width = 4;
  for (const auto& [name, row] : rows) width = std::max(width, std::min<size_t>(name.size(), 60));

  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-*s %8s %11s %11s %11s %7s\n", static_cast<int>(width), "Name",
                "Calls", "Total ms", "Self ms", "Avg us", "Total %");
  out += line;
  out += std::string(width + 53, '-') + '\n';
  for (const auto& [name, row] : rows) {
    std::string shown = name.size() > 60 ? name.substr(0, 57) + "..." : name;
    double pct = profiled_ns > 0 ? 100.0 * static_cast<double>(row.total_ns) / profiled_ns : 0.0;
    std::snprintf(line, sizeof line, "%-*s %8lld %11.3f %11.3f %11.2f %7.1f\n",
                  static_cast<int>(width), shown.c_str(), static_cast<long long>(row.calls),
                  row.total_ns / 1e6, row.self_ns / 1e6, row.total_ns / 1e3 / row.calls, pct);
    out += line;
  }
  std::snprintf(line, sizeof line, "%zu events in %zu threads, %.3f ms profiled\n", evs.size(),
                threads.size(), profiled_ns / 1e6);
  out += line;
  return out;
}

std::string chrome_trace_json() {
  std::vector<Event> evs = events();
  std::string out = "{\"traceEvents\":[";
  const long pid = static_cast<long>(::getpid());
  char num[160];
  for (size_t i = 0; i < evs.size(); ++i) {
    const Event& e = evs[i];
    if (i) out += ',';
    out += "\n{\"name\":";
    append_json_string(out, e.name);
    std::snprintf(num, sizeof num,
                  ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%ld,\"tid\":%u}",
                  kind_name(e.kind), e.start_ns / 1e3, e.duration_ns / 1e3, pid, e.thread);
    out += num;
  }
  out += "\n],\"displayTimeUnit\":\"ms\"}\n";
  return out;
}

void save_chrome_trace(const std::string& path) {
  nabla::detail::write_file_atomically(path, chrome_trace_json(), "save_chrome_trace");
}

}  // namespace nabla::autograd::profiler
