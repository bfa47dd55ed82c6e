// The data loader's machinery: the queue and shuttle between the loop and its workers,
// the sequencers that restore job order, the iterator's rules, the options and timeouts.
// Every wait in these tests has a timeout, so a regression fails instead of hanging.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <nabla/nabla.h>

#include "test_util.h"

namespace data = nabla::data;
using nabla::testing::expect_error;
using std::chrono::milliseconds;

namespace {

constexpr milliseconds kPatience{5000};  // what a test waits before calling it a hang

// Example i is the int i; counts get() calls.
struct Ints : data::datasets::Dataset<Ints, int> {
  explicit Ints(size_t n) : n(n) {}
  int get(size_t index) override {
    ++*calls;
    return static_cast<int>(index);
  }
  nabla::optional<size_t> size() const override { return n; }
  size_t n;
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
};

template <class Loader>
std::vector<std::vector<int>> one_epoch(Loader& loader) {
  std::vector<std::vector<int>> out;
  for (auto& batch : loader) out.push_back(batch);
  return out;
}

}  // namespace

TEST(DataQueue, FifoAcrossThreadsAndTimeout) {
  data::detail::Queue<int> queue;
  queue.push(1);
  queue.push(2);
  EXPECT_EQ(queue.pop(), 1);
  EXPECT_EQ(queue.pop(kPatience), 2);
  auto late = std::async(std::launch::async, [&queue] {
    std::this_thread::sleep_for(milliseconds(20));
    queue.push(7);
  });
  EXPECT_EQ(queue.pop(kPatience), 7);
  late.get();
  expect_error([&] { queue.pop(milliseconds(5)); },
               {"Timeout in DataLoader queue while waiting for next batch (timeout was 5 ms)"});
  queue.push(3);
  queue.push(4);
  EXPECT_EQ(queue.clear(), 2u);
  EXPECT_EQ(queue.clear(), 0u);
}

TEST(DataShuttle, CountsJobsInFlightAndDrains) {
  data::detail::DataShuttle<int, int> shuttle;
  EXPECT_FALSE(shuttle.pop_result().has_value()) << "no job in flight: no waiting";
  shuttle.push_job(10);
  shuttle.push_job(11);
  EXPECT_EQ(shuttle.in_flight_jobs(), 2u);
  EXPECT_EQ(shuttle.pop_job(), 10);
  shuttle.push_result(100);
  EXPECT_EQ(shuttle.pop_result(kPatience).value(), 100);
  EXPECT_EQ(shuttle.in_flight_jobs(), 1u);
  expect_error([&] { shuttle.pop_result(milliseconds(5)); }, {"Timeout"});
  shuttle.drain();  // job 11 was never taken: dropped without waiting
  EXPECT_EQ(shuttle.in_flight_jobs(), 0u);
  EXPECT_FALSE(shuttle.pop_result().has_value());
  // A result left behind by a drained job does not leak into the next epoch.
  shuttle.push_job(1);
  shuttle.push_result(-1);
  shuttle.drain();
  shuttle.push_job(2);
  EXPECT_EQ(shuttle.pop_job(), 2);
  shuttle.push_result(20);
  EXPECT_EQ(shuttle.pop_result(kPatience).value(), 20);
}

TEST(DataSequencers, OrderedSequencerRestoresJobOrder) {
  using data::detail::sequencers::NoSequencer;
  using data::detail::sequencers::OrderedSequencer;
  struct R {
    size_t sequence_number;
  };
  std::vector<size_t> arrivals{2, 0, 3, 1};
  size_t taken = 0;
  auto producer = [&]() -> nabla::optional<R> {
    if (taken == arrivals.size()) return nabla::nullopt;
    return R{arrivals[taken++]};
  };
  OrderedSequencer<R> ordered(4);
  EXPECT_EQ(ordered.buffer_.size(), 4u);
  EXPECT_EQ(ordered.next(producer)->sequence_number, 0u);
  EXPECT_EQ(taken, 2u) << "2 was held back until 0 arrived";
  EXPECT_EQ(ordered.next(producer)->sequence_number, 1u);
  EXPECT_EQ(taken, 4u);
  EXPECT_EQ(ordered.next(producer)->sequence_number, 2u);
  EXPECT_EQ(ordered.next(producer)->sequence_number, 3u);
  EXPECT_FALSE(ordered.next(producer).has_value());
  EXPECT_EQ(ordered.next_sequence_number_, 4u);

  taken = 0;
  NoSequencer<R> arrival_order;
  EXPECT_EQ(arrival_order.next(producer)->sequence_number, 2u);

  // A result outside the window of max_jobs is a broken loader, reported, not a crash.
  OrderedSequencer<R> small(2);
  arrivals = {5};
  taken = 0;
  expect_error([&] { small.next(producer); }, {"result 5 arrived while waiting for 0"});
  expect_error([] { OrderedSequencer<R> none(0); }, {"max_jobs must be positive"});
}

TEST(DataLoaderOptions, CoalescesDefaults) {
  data::FullDataLoaderOptions defaults{data::DataLoaderOptions()};
  EXPECT_EQ(defaults.batch_size, 1u);
  EXPECT_EQ(defaults.workers, 0u);
  EXPECT_EQ(defaults.max_jobs, 0u);
  EXPECT_FALSE(defaults.timeout.has_value());
  EXPECT_TRUE(defaults.enforce_ordering);
  EXPECT_FALSE(defaults.drop_last);
  data::FullDataLoaderOptions full{
      data::DataLoaderOptions(16).workers(3).timeout(milliseconds(250)).enforce_ordering(false)};
  EXPECT_EQ(full.batch_size, 16u);
  EXPECT_EQ(full.max_jobs, 6u) << "2 x workers";
  EXPECT_EQ(full.timeout->count(), 250);
  EXPECT_FALSE(full.enforce_ordering);
  EXPECT_EQ(data::FullDataLoaderOptions(data::DataLoaderOptions().workers(3).max_jobs(1)).max_jobs,
            1u);
  auto loader = data::make_data_loader(Ints(4), data::DataLoaderOptions(2).workers(1));
  EXPECT_EQ(loader->options().max_jobs, 2u);
  expect_error([] { data::make_data_loader(Ints(4), data::DataLoaderOptions(0)); },
               {"batch_size must be positive"});
  expect_error(
      [] { data::make_data_loader(Ints(4), data::DataLoaderOptions(2).workers(2).max_jobs(0)); },
      {"max_jobs must be positive"});
}

TEST(DataIterator, LazyStartSharedStateAndMisuse) {
  Ints dataset(7);
  auto calls = dataset.calls;
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(dataset, 3);
  auto it = loader->begin();
  EXPECT_EQ(*calls, 0) << "begin() fetches nothing";
  auto copy = it;
  EXPECT_EQ(*it, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*calls, 3);
  EXPECT_EQ(*copy, *it) << "copies share one state";
  ++copy;
  EXPECT_EQ(*it, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(it->size(), 3u);
  EXPECT_TRUE(it == copy);
  EXPECT_TRUE(it != loader->end());
  ++it;
  EXPECT_EQ(*it, (std::vector<int>{6}));
  ++it;
  EXPECT_TRUE(it == loader->end());
  EXPECT_TRUE(loader->end() == it);
  expect_error([&] { ++it; }, {"Attempted to increment iterator past the end"});
  expect_error([&] { (void)*it; }, {"Attempted to dereference iterator that was past the end"});
  auto end = loader->end();
  EXPECT_TRUE(end == loader->end());
  expect_error([&] { ++end; },
               {"Incrementing the DataLoader's past-the-end iterator is not allowed"});
  expect_error([&] { (void)*end; },
               {"Dereferencing the DataLoader's past-the-end iterator is not allowed"});
  // Two iterators of different epochs are different iterators.
  auto a = loader->begin();
  auto b = loader->begin();
  EXPECT_FALSE(a == b);
  std::vector<std::vector<int>> all;
  std::copy(loader->begin(), loader->end(), std::back_inserter(all));
  EXPECT_EQ(all, (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4, 5}, {6}}));
}

TEST(DataIterator, BeginWhileAnIteratorIsInFlight) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Ints(20), data::DataLoaderOptions(2).workers(2).timeout(kPatience));
  {
    auto live = loader->begin();
    EXPECT_EQ(*live, (std::vector<int>{0, 1}));
    expect_error([&] { loader->begin(); },
                 {"Attempted to get a new DataLoader iterator while another iterator is not yet "
                  "exhausted"});
  }
  // The iterator is gone (a loop left with break): its epoch is dropped, a new one starts.
  auto epoch = one_epoch(*loader);
  ASSERT_EQ(epoch.size(), 10u);
  EXPECT_EQ(epoch.front(), (std::vector<int>{0, 1}));
  EXPECT_EQ(epoch.back(), (std::vector<int>{18, 19}));
  // An exhausted iterator may stay alive.
  auto done = loader->begin();
  while (done != loader->end()) ++done;
  EXPECT_EQ(one_epoch(*loader).size(), 10u);
}

TEST(DataLoader, DropLastAndWorkersGiveTheSameBatches) {
  for (size_t workers : {0, 1, 3}) {
    SCOPED_TRACE(workers);
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Ints(10), data::DataLoaderOptions(4).workers(workers).drop_last(true).timeout(kPatience));
    EXPECT_EQ(one_epoch(*loader), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  }
}

namespace {
// Batch 0 waits (at most `hold`) for the test to release it; batch 1 returns at once.
struct HeldBack : data::datasets::Dataset<HeldBack, int> {
  struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
  };
  HeldBack(std::shared_ptr<Gate> gate, milliseconds hold) : gate(std::move(gate)), hold(hold) {}
  int get(size_t index) override {
    if (index == 0) {
      std::unique_lock<std::mutex> lock(gate->mutex);
      gate->cv.wait_for(lock, hold, [this] { return gate->open; });
    }
    return static_cast<int>(index);
  }
  nabla::optional<size_t> size() const override { return 2; }
  std::shared_ptr<Gate> gate;
  milliseconds hold;
};
}  // namespace

TEST(DataLoader, EnforceOrderingHoldsBackEarlyBatches) {
  auto gate = std::make_shared<HeldBack::Gate>();
  // Without ordering the ready batch comes first; the test then lets batch 0 finish.
  auto loose = data::make_data_loader<data::samplers::SequentialSampler>(
      HeldBack(gate, kPatience),
      data::DataLoaderOptions(1).workers(2).enforce_ordering(false).timeout(kPatience));
  std::vector<int> seen;
  for (auto& batch : *loose) {
    seen.push_back(batch.at(0));
    std::lock_guard<std::mutex> lock(gate->mutex);
    gate->open = true;
    gate->cv.notify_all();
  }
  EXPECT_EQ(seen, (std::vector<int>{1, 0}));
  // With ordering, batch 1 waits for batch 0 (released by its own short hold).
  auto strict = data::make_data_loader<data::samplers::SequentialSampler>(
      HeldBack(std::make_shared<HeldBack::Gate>(), milliseconds(50)),
      data::DataLoaderOptions(1).workers(2).timeout(kPatience));
  seen.clear();
  for (auto& batch : *strict) seen.push_back(batch.at(0));
  EXPECT_EQ(seen, (std::vector<int>{0, 1}));
}

TEST(DataLoader, TimeoutRaisesInsteadOfWaiting) {
  auto gate = std::make_shared<HeldBack::Gate>();
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      HeldBack(gate, kPatience), data::DataLoaderOptions(1).workers(1).timeout(milliseconds(30)));
  const auto start = std::chrono::steady_clock::now();
  expect_error([&] { (void)*loader->begin(); }, {"Timeout", "(timeout was 30 ms)"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  std::lock_guard<std::mutex> lock(gate->mutex);  // let the worker finish for the destructor
  gate->open = true;
  gate->cv.notify_all();
}

namespace {
struct MoveOnly : data::datasets::Dataset<MoveOnly, int> {
  MoveOnly() = default;
  MoveOnly(MoveOnly&&) = default;
  MoveOnly(const MoveOnly&) = delete;
  int get(size_t index) override { return static_cast<int>(index) * 10; }
  nabla::optional<size_t> size() const override { return 3; }
};
struct Unsized : data::datasets::Dataset<Unsized, int> {
  int get(size_t index) override { return static_cast<int>(index); }
  nabla::optional<size_t> size() const override { return nabla::nullopt; }
};
}  // namespace

TEST(DataLoader, UncopyableDatasetsNeedNoWorkersOrASharedHandle) {
  auto inline_loader = data::make_data_loader<data::samplers::SequentialSampler>(MoveOnly(), 2);
  EXPECT_EQ(one_epoch(*inline_loader), (std::vector<std::vector<int>>{{0, 10}, {20}}));
  expect_error(
      [] {
        data::make_data_loader<data::samplers::SequentialSampler>(
            MoveOnly(), data::DataLoaderOptions(2).workers(2));
      },
      {"cannot be copied", "SharedBatchDataset"});
  auto shared = data::datasets::make_shared_dataset<MoveOnly>();
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      shared, data::DataLoaderOptions(2).workers(2).timeout(kPatience));
  EXPECT_EQ(one_epoch(*loader), (std::vector<std::vector<int>>{{0, 10}, {20}}));
  expect_error([] { data::make_data_loader(data::datasets::make_shared_dataset<Unsized>()); },
               {"Expected the dataset to be sized in order to construct the Sampler"});
}

namespace {
// A request naming a first index and a count (a custom batch request type).
struct Span : data::samplers::CustomBatchRequest {
  Span(size_t first, size_t count) : first(first), count(count) {}
  size_t size() const override { return count; }
  size_t first, count;
};
struct SpanSampler : data::samplers::Sampler<Span> {
  explicit SpanSampler(size_t n) : n(n) {}
  void reset(nabla::optional<size_t> new_size) override {
    n = new_size.value_or(n);
    at = 0;
  }
  nabla::optional<Span> next(size_t batch_size) override {
    if (at >= n) return nabla::nullopt;
    Span span(at, std::min(batch_size, n - at));
    at += span.count;
    return span;
  }
  void save(nabla::serialize::OutputArchive&) const override {}
  void load(nabla::serialize::InputArchive&) override {}
  size_t n, at = 0;
};
struct Spans : data::datasets::BatchDataset<Spans, std::vector<int>, Span> {
  std::vector<int> get_batch(Span span) override {
    std::vector<int> out;
    for (size_t i = 0; i < span.count; ++i) out.push_back(static_cast<int>(span.first + i));
    return out;
  }
  nabla::optional<size_t> size() const override { return 7; }
};
}  // namespace

TEST(DataLoader, CustomBatchRequestsAndDropLast) {
  auto loader = data::make_data_loader(Spans(), SpanSampler(7), data::DataLoaderOptions(3));
  EXPECT_EQ(one_epoch(*loader), (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  auto dropping = data::make_data_loader(Spans(), SpanSampler(7),
                                         data::DataLoaderOptions(3).drop_last(true).workers(2));
  EXPECT_EQ(one_epoch(*dropping), (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4, 5}}));
}
