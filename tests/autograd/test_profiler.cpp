#include <nabla/autograd/profiler.h>
#include <nabla/backend/backend.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "test_util.h"

#if __has_include(<nlohmann/json.hpp>)
#include <nlohmann/json.hpp>
#define NABLA_HAVE_NLOHMANN_JSON 1
#endif

using namespace nabla;
namespace profiler = nabla::autograd::profiler;
using profiler::Event;
using profiler::EventKind;

using nabla::testing::read_text;
namespace {

std::vector<Event> named(const std::vector<Event>& evs, const std::string& name) {
  std::vector<Event> out;
  for (const Event& e : evs)
    if (e.name == name) out.push_back(e);
  return out;
}

bool encloses(const Event& outer, const Event& inner) {
  return outer.thread == inner.thread && outer.start_ns <= inner.start_ns &&
         inner.start_ns + inner.duration_ns <= outer.start_ns + outer.duration_ns &&
         inner.depth > outer.depth;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

TEST(Profiler, ForwardAndBackwardAreRecorded) {
  Tensor a = rand({4, 5}, kDouble).requires_grad_();
  Tensor b = rand({5}, kDouble).requires_grad_();
  Tensor m = rand({5, 3});
  {
    profiler::ProfilerGuard guard;
    EXPECT_TRUE(profiler::is_enabled());
    Tensor y = (a * b).tanh();
    y.backward(ones_like(y));
    Tensor g = m.matmul(m.t()).sum();  // no grad: plain kernels
  }
  EXPECT_FALSE(profiler::is_enabled());
  std::vector<Event> evs = profiler::events();
  for (const char* kernel : {"binary.Mul", "unary.Tanh", "gemm", "reduce.Sum", "fill"}) {
    auto got = named(evs, kernel);
    ASSERT_FALSE(got.empty()) << kernel;
    EXPECT_EQ(got[0].kind, EventKind::Kernel) << kernel;
  }
  for (const char* node : {"TanhBackward0", "MulBackward0", "AccumulateGrad"}) {
    auto got = named(evs, node);
    ASSERT_FALSE(got.empty()) << node;
    EXPECT_EQ(got[0].kind, EventKind::Backward) << node;
  }
  EXPECT_EQ(named(evs, "TanhBackward0").size(), 1u);
  EXPECT_EQ(named(evs, "MulBackward0").size(), 1u);
  EXPECT_EQ(named(evs, "AccumulateGrad").size(), 2u);
  // The forward Mul and the backward's Muls: 1 forward + at least 2 in MulBackward0.
  EXPECT_GE(named(evs, "binary.Mul").size(), 3u);
  // Kernels run by a backward formula are nested inside its node's event.
  Event mul_backward = named(evs, "MulBackward0")[0];
  size_t nested = 0;
  for (const Event& e : evs)
    if (e.kind == EventKind::Kernel && encloses(mul_backward, e)) ++nested;
  EXPECT_GE(nested, 2u);
  EXPECT_LT(mul_backward.self_ns, mul_backward.duration_ns);
  for (const Event& e : evs) {
    EXPECT_GE(e.start_ns, 0);
    EXPECT_GE(e.duration_ns, 0);
    EXPECT_GE(e.self_ns, 0);
    EXPECT_LE(e.self_ns, e.duration_ns);
  }
  // Gradients are still right through the proxy backend.
  EXPECT_TRUE(a.grad().defined());
  EXPECT_TRUE(b.grad().defined());
}

TEST(Profiler, NestedScopes) {
  {
    profiler::ProfilerGuard guard;
    NABLA_RECORD_FUNCTION("outer");
    {
      NABLA_RECORD_FUNCTION("inner");
      sleep_ms(3);
    }
    {
      profiler::RecordFunction second("inner");
      sleep_ms(1);
    }
    sleep_ms(1);
  }
  std::vector<Event> evs = profiler::events();
  ASSERT_EQ(evs.size(), 3u);
  Event outer = named(evs, "outer").at(0);
  auto inner = named(evs, "inner");
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(outer.depth, 0u);
  EXPECT_EQ(outer.kind, EventKind::UserScope);
  for (const Event& e : inner) {
    EXPECT_EQ(e.depth, 1u);
    EXPECT_TRUE(encloses(outer, e));
    EXPECT_EQ(e.self_ns, e.duration_ns);
  }
  EXPECT_LE(inner[0].start_ns + inner[0].duration_ns, inner[1].start_ns);
  EXPECT_GE(inner[0].duration_ns, 3'000'000);
  EXPECT_EQ(outer.self_ns, outer.duration_ns - inner[0].duration_ns - inner[1].duration_ns);
  EXPECT_GE(outer.self_ns, 1'000'000);
  // The table lists outer above inner (larger total) with their call counts.
  std::string table = profiler::table();
  size_t po = table.find("outer"), pi = table.find("inner");
  ASSERT_NE(po, std::string::npos) << table;
  ASSERT_NE(pi, std::string::npos) << table;
  EXPECT_LT(po, pi) << table;
  EXPECT_NE(table.find("Calls"), std::string::npos);
  EXPECT_NE(table.find("Self ms"), std::string::npos);
  EXPECT_NE(table.find("3 events in 1 threads"), std::string::npos) << table;
}

TEST(Profiler, EventsFromAllThreads) {
  const int threads = 4, iters = 10;
  {
    profiler::ProfilerGuard guard;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([] {
        Tensor x = ones({8});
        for (int i = 0; i < iters; ++i) {
          NABLA_RECORD_FUNCTION("worker");
          x = x + 1;
        }
      });
    }
    for (auto& th : pool) th.join();
  }
  std::vector<Event> evs = profiler::events();
  auto workers = named(evs, "worker");
  auto adds = named(evs, "binary.Add");
  EXPECT_EQ(workers.size(), static_cast<size_t>(threads * iters));
  EXPECT_EQ(adds.size(), static_cast<size_t>(threads * iters));
  std::set<uint32_t> ids;
  for (const Event& w : workers) ids.insert(w.thread);
  EXPECT_EQ(ids.size(), static_cast<size_t>(threads));
  // Each Add sits inside a worker scope of its own thread.
  for (const Event& add : adds) {
    EXPECT_EQ(add.depth, 1u);
    bool inside = std::any_of(workers.begin(), workers.end(),
                              [&](const Event& w) { return encloses(w, add); });
    EXPECT_TRUE(inside);
  }
  // Ordered by thread, then start.
  for (size_t i = 1; i < evs.size(); ++i) {
    EXPECT_TRUE(evs[i - 1].thread < evs[i].thread ||
                (evs[i - 1].thread == evs[i].thread && evs[i - 1].start_ns <= evs[i].start_ns));
  }
}

TEST(Profiler, DisabledProfilerRecordsNothing) {
  KernelBackend* plain = &backend_for(Device(kCPU));
  {
    profiler::ProfilerGuard guard;
    EXPECT_NE(&backend_for(Device(kCPU)), plain);  // the profiling proxy
    EXPECT_EQ(backend_for(Device(kCPU)).device_type(), kCPU);
    NABLA_RECORD_FUNCTION("only");
  }
  EXPECT_EQ(&backend_for(Device(kCPU)), plain);
  ASSERT_EQ(profiler::events().size(), 1u);
  // Work after the profile changes nothing.
  {
    NABLA_RECORD_FUNCTION("after");
    Tensor a = ones({3}).requires_grad_();
    (a * 2).backward(ones({3}));
  }
  ASSERT_EQ(profiler::events().size(), 1u);
  EXPECT_EQ(profiler::events()[0].name, "only");

  // A scope opened before the profile is not recorded even if it ends during it; a
  // profile without work has no events.
  {
    std::optional<profiler::RecordFunction> before;
    before.emplace("before");
    profiler::ProfilerGuard guard;
    before.reset();
  }
  EXPECT_TRUE(profiler::events().empty());
  EXPECT_NE(profiler::table().find("0 events"), std::string::npos);
}

TEST(Profiler, GuardsDoNotNestAndStopEarly) {
  profiler::ProfilerGuard guard;
  nabla::testing::expect_error([] { profiler::ProfilerGuard second; },
                               {"ProfilerGuard", "already running"});
  NABLA_RECORD_FUNCTION("kept");
  guard.stop();
  EXPECT_FALSE(profiler::is_enabled());
  { NABLA_RECORD_FUNCTION("dropped"); }
  guard.stop();                              // idempotent
  ASSERT_EQ(profiler::events().size(), 0u);  // "kept" was still open when the profile ended
}

TEST(Profiler, TableListsOpsByTotal) {
  {
    profiler::ProfilerGuard guard;
    Tensor big = rand({300, 300});
    Tensor c = big.matmul(big);
    Tensor s = ones({4}) * 3;
  }
  std::string table = profiler::table();
  for (const char* op :
       {"gemm", "binary.Mul", "random.Uniform", "Name", "Total ms", "Avg us", "Total %"})
    EXPECT_NE(table.find(op), std::string::npos) << op << "\n" << table;
  // A 300x300 gemm takes longer than a 4-element multiply: it is listed first.
  EXPECT_LT(table.find("gemm"), table.find("binary.Mul")) << table;
}

TEST(Profiler, ChromeTraceJson) {
  {
    profiler::ProfilerGuard guard;
    NABLA_RECORD_FUNCTION("step \"1\"\n\\");
    Tensor a = ones({2, 2}).requires_grad_();
    (a.exp() * a).backward(ones({2, 2}));
  }
  std::vector<Event> evs = profiler::events();
  std::string json = profiler::chrome_trace_json();
  EXPECT_EQ(json.rfind("{\"traceEvents\":[", 0), 0u);
#ifdef NABLA_HAVE_NLOHMANN_JSON
  nlohmann::json doc = nlohmann::json::parse(json);
  ASSERT_TRUE(doc["traceEvents"].is_array());
  ASSERT_EQ(doc["traceEvents"].size(), evs.size());
  for (size_t i = 0; i < evs.size(); ++i) {
    const auto& j = doc["traceEvents"][i];
    EXPECT_EQ(j["name"].get<std::string>(), evs[i].name);
    EXPECT_EQ(j["ph"], "X");
    EXPECT_TRUE(j["ts"].is_number());
    EXPECT_NEAR(j["ts"].get<double>(), evs[i].start_ns / 1e3, 1e-3);
    EXPECT_NEAR(j["dur"].get<double>(), evs[i].duration_ns / 1e3, 1e-3);
    EXPECT_TRUE(j["pid"].is_number_integer());
    EXPECT_EQ(j["tid"].get<uint32_t>(), evs[i].thread);
    EXPECT_EQ(j["cat"].get<std::string>(), profiler::kind_name(evs[i].kind));
  }
  EXPECT_EQ(doc["traceEvents"][0]["name"], "step \"1\"\n\\");
#else
  GTEST_SKIP() << "nlohmann/json.hpp not installed: JSON not validated";
#endif
}

TEST(Profiler, SaveTraceAndRecordProfile) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("nabla_profiler_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path path = dir / "trace.json";
  {
    profiler::RecordProfile guard(path.string());
    Tensor x = ones({3}) + 1;
  }
  std::string saved = read_text(path);
  EXPECT_EQ(saved, profiler::chrome_trace_json());
  EXPECT_NE(saved.find("binary.Add"), std::string::npos);
  profiler::save_chrome_trace(path.string());  // overwrite in place
  EXPECT_EQ(read_text(path), saved);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);

  std::ostringstream os;
  {
    profiler::RecordProfile guard(os);
    NABLA_RECORD_FUNCTION("to_stream");
  }
  EXPECT_NE(os.str().find("\"to_stream\""), std::string::npos);
  nabla::testing::expect_error([] { profiler::save_chrome_trace("/nonexistent_dir_nabla/t.json"); },
                               {"save_chrome_trace", "/nonexistent_dir_nabla/t.json"});
  fs::remove_all(dir);
}
