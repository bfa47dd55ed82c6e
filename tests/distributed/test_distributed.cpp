// The distributed layer: stores, samplers, the collectives on Gloo ranks that are threads
// of this process, and the multi-process runs of distributed_worker (Gloo ranks spawned
// here, MPI ranks by mpirun): collectives, faults, wrong world sizes.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "distributed/collective_checks.h"
#include "distributed/spawn.h"
#include "test_util.h"

namespace nabla::testing {
namespace {
namespace dist = nabla::distributed;
using namespace std::chrono_literals;

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

// What every store must do, on `a` and `b`: two handles on one store.
void check_store(dist::Store& a, dist::Store& b) {
  a.set("x", bytes("1"));
  EXPECT_EQ(b.get("x"), bytes("1"));
  EXPECT_TRUE(b.check({"x"}));
  EXPECT_FALSE(b.check({"x", "y"}));
  EXPECT_EQ(a.add("n", 2), 2);
  EXPECT_EQ(b.add("n", 5), 7);
  EXPECT_EQ(b.compareSet("x", bytes("1"), bytes("2")), bytes("2"));
  EXPECT_EQ(a.compareSet("x", bytes("1"), bytes("3")), bytes("2"));  // expected no longer held
  EXPECT_EQ(a.compareSet("fresh", {}, bytes("v")), bytes("v"));
  EXPECT_TRUE(a.deleteKey("fresh"));
  EXPECT_FALSE(b.deleteKey("fresh"));
  std::thread later([&] {
    std::this_thread::sleep_for(100ms);
    a.set("late", bytes("here"));
  });
  EXPECT_EQ(b.get("late"), bytes("here"));  // get waits for the key
  later.join();
  expect_error([&] { b.wait({"never"}, 200ms); }, {"waited 200 ms", "'never'"});
}

TEST(Store, HashStore) {
  dist::HashStore s;
  check_store(s, s);
  EXPECT_EQ(s.getNumKeys(), 3);
}

TEST(Store, FileStoreSharedByTwoHandlesAndCleanedUp) {
  const std::string path = temp_path("filestore");
  {
    dist::FileStore a(path, 2), b(path, 2);
    check_store(a, b);
    EXPECT_EQ(a.getNumKeys(), 3);
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << "the last of numWorkers stores removes the file";
  expect_error([] { dist::FileStore("/nonexistent_dir/x/y", 1); },
               {"FileStore", "/nonexistent_dir"});
}

TEST(Store, TCPStoreServerAndClient) {
  dist::TCPStoreOptions so;
  so.port = 0;  // any free port
  so.isServer = true;
  so.timeout = 10s;
  dist::TCPStore server("127.0.0.1", so);
  dist::TCPStoreOptions co;
  co.port = server.getPort();
  co.timeout = 10s;
  dist::TCPStore client("127.0.0.1", co);
  check_store(server, client);
  dist::PrefixStore pa("p", std::make_shared<dist::HashStore>());
  pa.set("k", bytes("v"));
  EXPECT_TRUE(pa.check({"k"}));
  EXPECT_TRUE(pa.getUnderlyingStore()->check({"p/k"}));
}

TEST(Store, TCPStoreUnreachableIsAClearError) {
  dist::TCPStoreOptions co;
  co.port = static_cast<uint16_t>(free_port());
  co.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  expect_error([&] { dist::TCPStore("127.0.0.1", co); },
               {"TCPStore", "could not connect to 127.0.0.1:" + std::to_string(co.port),
                "within 300 ms", "refused"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  co.timeout = 300ms;
  expect_error([&] { dist::TCPStore("no-such-host.invalid", co); }, {"cannot resolve"});
}

TEST(Store, TCPStoreServerWaitsForItsWorkers) {
  dist::TCPStoreOptions so;
  so.port = 0;
  so.isServer = true;
  so.numWorkers = 3;
  so.timeout = 300ms;
  expect_error([&] { dist::TCPStore("127.0.0.1", so); }, {"1 of 3 workers connected"});
}

TEST(Samplers, DistributedShardsPartitionTheDataset) {
  using data::samplers::DistributedRandomSampler;
  using data::samplers::DistributedSequentialSampler;
  for (size_t size : {10u, 11u, 12u})
    for (size_t replicas : {2u, 3u}) {
      std::vector<int> seen(size, 0);
      for (size_t r = 0; r < replicas; ++r) {
        DistributedRandomSampler s(size, replicas, r, /*allow_duplicates=*/true);
        size_t got = 0;
        while (auto b = s.next(4)) {
          for (size_t i : *b) ++seen[i];
          got += b->size();
        }
        EXPECT_EQ(got, (size + replicas - 1) / replicas);
      }
      for (size_t i = 0; i < size; ++i) EXPECT_GE(seen[i], 1) << "index " << i << " left out";
      DistributedSequentialSampler q(size, replicas, replicas - 1, false);
      auto b = q.next(100);
      ASSERT_TRUE(b.has_value());
      EXPECT_EQ(b->size(), size / replicas);
      EXPECT_EQ(b->front(), (replicas - 1) * (size / replicas));
    }
  // set_epoch changes the order, the same way on every replica.
  DistributedRandomSampler a(100, 2, 0), b(100, 2, 0);
  a.set_epoch(3);
  a.reset();
  auto first = *a.next(50);
  b.set_epoch(3);
  b.reset();
  EXPECT_EQ(*b.next(50), first);
  a.set_epoch(4);
  a.reset();
  EXPECT_NE(*a.next(50), first);
  expect_error([] { DistributedRandomSampler(10, 2, 2); }, {"rank 2", "num_replicas 2"});
}

// A test of a backend the build lacks is skipped, saying so.
#define REQUIRE_GLOO() \
  if (!NABLA_TEST_HAVE_GLOO) GTEST_SKIP() << "built without Gloo (libgloo-dev)"
#define REQUIRE_MPI() \
  if (!NABLA_TEST_HAVE_MPI) GTEST_SKIP() << "built without MPI (libopenmpi-dev)"

// ---- Gloo ranks as threads of this process ----------------------------------------------

template <class F>
void run_gloo_threads(int world, F body) {
  auto store = std::make_shared<dist::HashStore>();
  std::vector<std::thread> ranks;
  for (int r = 0; r < world; ++r)
    ranks.emplace_back([&, r] {
      auto options = dist::ProcessGroupGloo::Options::create(30s);
      options->devices.push_back(dist::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      try {
        dist::ProcessGroupGloo pg(store, r, world, options);
        body(pg);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "rank " << r << ": " << e.what();
      }
    });
  for (auto& t : ranks) t.join();
}

TEST(GlooThreads, CollectivesOnTwoRanks) {
  REQUIRE_GLOO();
  run_gloo_threads(2, check_all_collectives);
}
TEST(GlooThreads, CollectivesOnThreeRanks) {
  REQUIRE_GLOO();
  run_gloo_threads(3, check_all_collectives);
}

// Gloo writes with writev: a write to a rank that died would raise SIGPIPE and end this
// rank before it could report the dead peer. A group ignores SIGPIPE where the program left
// it at the default (each test runs in its own process, so it starts at the default here).
TEST(GlooThreads, ADeadPeerCannotEndARankBySigpipe) {
  REQUIRE_GLOO();
  struct sigaction before = {};
  struct sigaction after = {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &before), 0);
  run_gloo_threads(2, [](dist::ProcessGroup& pg) { pg.barrier()->wait(); });
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &after), 0);
  if (before.sa_handler == SIG_DFL)
    EXPECT_EQ(after.sa_handler, SIG_IGN);
  else
    EXPECT_EQ(after.sa_handler, before.sa_handler) << "a program's own disposition is kept";
}

TEST(GlooThreads, AbortFailsWhatIsQueued) {
  REQUIRE_GLOO();
  run_gloo_threads(2, [](dist::ProcessGroup& pg) {
    std::vector<Tensor> t{ones({4})};
    pg.allreduce(t)->wait();
    pg.barrier()->wait();
    if (pg.getRank() == 0) {
      pg.abort();
      std::vector<Tensor> u{ones({4})};
      expect_error([&] { pg.allreduce(u)->wait(); }, {"allreduce", "unusable", "abort()"});
    }
  });
}

// ---- Processes ---------------------------------------------------------------------------

// The sanitizer builds (scripts/test_sanitizers.sh) run the ranks several times slower
// (three ranks' DDP checks under AddressSanitizer on 2 cores: about 4 minutes), so the
// limits that catch a hang scale with them; ctest's limit there is 900 s per test.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kSanitizerSlowdown = 3;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr int kSanitizerSlowdown = 3;
#else
constexpr int kSanitizerSlowdown = 1;
#endif
#else
constexpr int kSanitizerSlowdown = 1;
#endif

std::vector<ProcessResult> run_gloo(int world, std::vector<std::string> args,
                                    std::chrono::seconds limit, int timeout_ms,
                                    std::vector<int> world_sizes = {}) {
  const int port = free_port();
  std::vector<ProcessSpec> specs;
  for (int r = 0; r < world; ++r) {
    ProcessSpec s;
    s.argv = {NABLA_DISTRIBUTED_WORKER};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.env = {{"RANK", std::to_string(r)},
             {"WORLD_SIZE", std::to_string(world_sizes.empty() ? world : world_sizes[r])},
             {"MASTER_ADDR", "127.0.0.1"},
             {"MASTER_PORT", std::to_string(port)},
             {"NABLA_TEST_BACKEND", "gloo"},
             {"NABLA_TEST_TIMEOUT_MS", std::to_string(timeout_ms)},
             {"NABLA_NUM_THREADS", "1"}};
    specs.push_back(std::move(s));
  }
  return run_processes(specs, limit);
}

ProcessResult run_mpi(int world, std::vector<std::string> args, std::chrono::seconds limit) {
  ProcessSpec s;
  s.argv = {NABLA_MPIRUN,
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            std::to_string(world),
            "--mca",
            "btl",
            "self,vader,tcp",
            "--mca",
            "btl_vader_single_copy_mechanism",
            "none",
            NABLA_DISTRIBUTED_WORKER};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  // Open MPI's runtime keeps allocations to the end and unloads its components, so
  // LeakSanitizer reports them (frames in unloaded modules it cannot even name); the ranks
  // run without leak detection. nabla's own code is leak-checked by every other test,
  // the Gloo ranks included.
  const char* asan = std::getenv("ASAN_OPTIONS");
  s.env = {{"NABLA_TEST_BACKEND", "mpi"},
           {"NABLA_NUM_THREADS", "1"},
           {"ASAN_OPTIONS", (asan ? std::string(asan) + ":" : std::string()) + "detect_leaks=0"}};
  return run_processes({s}, limit)[0];
}

void expect_all_passed(const std::vector<ProcessResult>& results) {
  for (size_t r = 0; r < results.size(); ++r)
    EXPECT_EQ(results[r].exit_code, 0) << "rank " << r << (results[r].timed_out ? " timed out" : "")
                                       << " signal " << results[r].signal << ":\n"
                                       << results[r].output;
}

TEST(GlooProcesses, CollectivesOnTwoAndThreeRanks) {
  REQUIRE_GLOO();
  for (int world : {2, 3})
    expect_all_passed(run_gloo(world, {}, 120s * kSanitizerSlowdown, 60000 * kSanitizerSlowdown));
}

TEST(GlooProcesses, ARankThatExitsMidStepFailsTheOthers) {
  REQUIRE_GLOO();
  auto results = run_gloo(3, {"--fault=exit"}, 60s, 5000);
  EXPECT_EQ(results[2].exit_code, 3);
  for (int r : {0, 1}) {
    EXPECT_EQ(results[r].exit_code, 0) << "rank " << r << " signal " << results[r].signal << ":\n"
                                       << results[r].output;
    EXPECT_NE(results[r].output.find("allreduce (gloo, rank " + std::to_string(r) + " of 3)"),
              std::string::npos)
        << results[r].output;
    EXPECT_LT(results[r].seconds, 30) << "the failure was noticed late";
  }
}

TEST(GlooProcesses, ARankThatStopsCallingCollectivesTimesOut) {
  REQUIRE_GLOO();
  auto results = run_gloo(2, {"--fault=silent"}, 60s, 2000);
  EXPECT_NE(results[1].output.find("injected failure"), std::string::npos) << results[1].output;
  EXPECT_EQ(results[0].exit_code, 0) << results[0].output;
  EXPECT_NE(results[0].output.find("allreduce (gloo, rank 0 of 2) failed"), std::string::npos)
      << results[0].output;
  EXPECT_LT(results[0].seconds, 20);
}

TEST(GlooProcesses, DisagreeingWorldSizesAreAClearError) {
  REQUIRE_GLOO();
  auto results = run_gloo(2, {}, 60s, 3000, {2, 3});
  std::string all;
  for (const auto& r : results) {
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_FALSE(r.timed_out) << r.output;
    all += r.output;
  }
  EXPECT_NE(all.find("world size"), std::string::npos) << all;
}

TEST(MpiProcesses, CollectivesOnTwoAndThreeRanks) {
  REQUIRE_MPI();
  for (int world : {2, 3}) {
    auto r = run_mpi(world, {}, 140s * kSanitizerSlowdown);
    EXPECT_EQ(r.exit_code, 0) << (r.timed_out ? "timed out\n" : "") << r.output;
  }
}

TEST(MpiProcesses, ARankThatExitsEndsTheJob) {
  REQUIRE_MPI();
  auto r = run_mpi(2, {"--fault=exit"}, 120s);
  EXPECT_FALSE(r.timed_out) << r.output;
  EXPECT_NE(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace nabla::testing
