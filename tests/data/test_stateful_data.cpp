// Stateful and stream datasets, shared datasets, the chunk dataset, and samplers saved to
// and loaded from archives. Loaders with workers carry a timeout: a regression fails
// instead of hanging.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nabla/nabla.h>

#include "test_util.h"

namespace data = nabla::data;
namespace datasets = nabla::data::datasets;
namespace samplers = nabla::data::samplers;
using nabla::testing::expect_error;

namespace {

constexpr std::chrono::milliseconds kStatefulPatience{5000};

template <class Loader>
auto stateful_epoch(Loader& loader) {
  std::vector<typename std::decay_t<decltype(*loader.begin())>> out;
  for (auto& batch : loader) out.push_back(batch);
  return out;
}

std::vector<int> flatten(const std::vector<std::vector<int>>& batches) {
  std::vector<int> out;
  for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Hands out 0 .. n-1 in requests of batch_size, then nullopt until reset(); thread-safe.
struct Counter : datasets::StatefulDataset<Counter, std::vector<int>> {
  explicit Counter(int n) : n(n) {}
  nabla::optional<std::vector<int>> get_batch(size_t batch_size) override {
    std::lock_guard<std::mutex> lock(*mutex);
    if (next >= n) return nabla::nullopt;
    std::vector<int> out;
    while (out.size() < batch_size && next < n) out.push_back(next++);
    return out;
  }
  nabla::optional<size_t> size() const override { return static_cast<size_t>(n); }
  void reset() override {
    next = 0;
    ++resets;
  }
  void save(nabla::serialize::OutputArchive& archive) const override {
    archive.write("next", static_cast<int64_t>(next));
  }
  void load(nabla::serialize::InputArchive& archive) override {
    int64_t v = 0;
    archive.read("next", v);
    next = static_cast<int>(v);
  }
  int n, next = 0, resets = 0;
  std::unique_ptr<std::mutex> mutex = std::make_unique<std::mutex>();  // movable
};

}  // namespace

TEST(DataStateful, LoaderAsksUntilNulloptEveryEpoch) {
  static_assert(Counter::is_stateful && !datasets::TensorDataset::is_stateful);
  auto shared = datasets::make_shared_dataset<Counter>(7);
  for (size_t workers : {0, 3}) {
    SCOPED_TRACE(workers);
    auto loader = data::make_data_loader(
        shared, data::DataLoaderOptions(3).workers(workers).timeout(kStatefulPatience));
    for (int epoch = 0; epoch < 2; ++epoch) {
      auto batches = stateful_epoch(*loader);
      auto values = flatten(batches);
      std::sort(values.begin(), values.end());
      EXPECT_EQ(values, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
      if (workers == 0) {
        EXPECT_EQ(batches.size(), 3u);
      }
    }
  }
  EXPECT_EQ(shared->resets, 4) << "begin() resets the dataset";
}

TEST(DataStateful, MapKeepsNulloptAndForwardsReset) {
  auto mapped = Counter(4).map(data::transforms::BatchLambda<std::vector<int>, int>(
      [](std::vector<int> b) { return std::accumulate(b.begin(), b.end(), 0); }));
  static_assert(decltype(mapped)::is_stateful);
  static_assert(std::is_same_v<decltype(mapped)::BatchType, nabla::optional<int>>);
  EXPECT_EQ(mapped.get_batch(3).value(), 0 + 1 + 2);
  EXPECT_EQ(mapped.get_batch(3).value(), 3);
  EXPECT_FALSE(mapped.get_batch(3).has_value());
  mapped.reset();
  EXPECT_EQ(mapped.get_batch(10).value(), 6);
  auto loader = data::make_data_loader(std::move(mapped), data::DataLoaderOptions(2));
  EXPECT_EQ(stateful_epoch(*loader), (std::vector<int>{1, 5}));
}

namespace {
// An endless stream: get_batch(n) returns the next n integers.
struct Naturals : datasets::StreamDataset<Naturals, std::vector<int>> {
  std::vector<int> get_batch(size_t n) override {
    std::vector<int> out(n);
    std::iota(out.begin(), out.end(), next);
    next += static_cast<int>(n);
    return out;
  }
  nabla::optional<size_t> size() const override { return nabla::nullopt; }
  int next = 0;
};
}  // namespace

TEST(DataStream, StreamSamplerBoundsTheEpoch) {
  samplers::StreamSampler sampler(10);
  EXPECT_EQ(sampler.next(4).value().size(), 4u);
  EXPECT_EQ(static_cast<size_t>(sampler.next(100).value()), 6u);
  EXPECT_FALSE(sampler.next(1).has_value());
  sampler.reset(3);
  EXPECT_EQ(sampler.next(5).value().size(), 3u);

  auto loader =
      data::make_data_loader(Naturals(), samplers::StreamSampler(10), data::DataLoaderOptions(4));
  EXPECT_EQ(stateful_epoch(*loader),
            (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  auto dropping = data::make_data_loader(Naturals(), samplers::StreamSampler(10),
                                         data::DataLoaderOptions(4).drop_last(true));
  EXPECT_EQ(stateful_epoch(*dropping), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(DataShared, CopiesShareOneDataset) {
  auto a = datasets::make_shared_dataset<Counter>(5);
  auto b = a;  // a second handle, not a second dataset
  EXPECT_EQ(a.get_batch(2).value(), (std::vector<int>{0, 1}));
  EXPECT_EQ(b.get_batch(2).value(), (std::vector<int>{2, 3}));
  EXPECT_EQ(&*a, &*b);
  EXPECT_EQ(b->next, 4);
  b.reset();
  EXPECT_EQ(a->next, 0);
  EXPECT_EQ(a.size().value(), 5u);
}

namespace {
// Chunk c holds `sizes[c]` examples, 100 * c + i; read_chunk of `bad` throws.
struct Shelves : datasets::ChunkDataReader<int> {
  using BatchType = ChunkType;
  explicit Shelves(std::vector<size_t> sizes, int bad = -1) : sizes(std::move(sizes)), bad(bad) {}
  ChunkType read_chunk(size_t c) override {
    if (static_cast<int>(c) == bad)
      throw std::runtime_error("shelf " + std::to_string(c) + " fell");
    ChunkType out(sizes.at(c));
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int>(100 * c + i);
    return out;
  }
  size_t chunk_count() override { return sizes.size(); }
  void reset() override {}
  std::vector<size_t> sizes;
  int bad;
};
using SequentialChunks =
    datasets::ChunkDataset<Shelves, samplers::SequentialSampler, samplers::SequentialSampler>;

auto sequential_chunks(Shelves reader, datasets::ChunkDatasetOptions options,
                       std::function<void(std::vector<int>&)> policy = {}) {
  return datasets::make_shared_dataset<SequentialChunks>(
      std::move(reader), samplers::SequentialSampler(0), samplers::SequentialSampler(0), options,
      std::move(policy));
}
}  // namespace

TEST(DataChunk, BatchesCrossChunksInOrder) {
  // Chunks of 4, 0 (skipped) and 5 examples, batches of 3: the batch that ends a chunk
  // is filled from the next one; only the last batch may be short.
  auto dataset = sequential_chunks(Shelves({4, 0, 5}), datasets::ChunkDatasetOptions(1, 3));
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(3));
  for (int epoch = 0; epoch < 2; ++epoch)
    EXPECT_EQ(stateful_epoch(*loader),
              (std::vector<std::vector<int>>{{0, 1, 2}, {3, 200, 201}, {202, 203, 204}}));
  EXPECT_EQ(dataset->chunk_sampler().index(), 3u);
}

TEST(DataChunk, ManyPreloadersAndWorkersDeliverEveryExample) {
  auto dataset = datasets::make_shared_dataset<datasets::ChunkDataset<Shelves>>(
      Shelves({10, 5, 20, 7}), samplers::RandomSampler(0), samplers::RandomSampler(0),
      datasets::ChunkDatasetOptions(3, 6, /*cache_size=*/12));
  auto loader = data::make_data_loader(
      dataset, data::DataLoaderOptions(6).workers(2).timeout(kStatefulPatience));
  std::vector<int> expected;
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < std::vector<int>{10, 5, 20, 7}[c]; ++i) expected.push_back(100 * c + i);
  for (int epoch = 0; epoch < 2; ++epoch) {
    auto batches = stateful_epoch(*loader);
    size_t short_batches = 0;
    for (const auto& b : batches) short_batches += b.size() < 6;
    EXPECT_LE(short_batches, 1u);
    auto values = flatten(batches);
    std::sort(values.begin(), values.end());
    EXPECT_EQ(values, expected);
  }
}

TEST(DataChunk, CrossChunkShuffleAndPreprocessing) {
  // Two chunks read together, reversed by the policy, then batched in order.
  auto dataset = sequential_chunks(
      Shelves({2, 3, 1}), datasets::ChunkDatasetOptions(1, 4, 8, /*cross_chunk_shuffle_count=*/2),
      [](std::vector<int>& v) { std::reverse(v.begin(), v.end()); });
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(4));
  EXPECT_EQ(stateful_epoch(*loader), (std::vector<std::vector<int>>{{102, 101, 100, 1}, {0, 200}}));
}

TEST(DataChunk, ReaderErrorsReachTheLoopAndOtherChunksStillArrive) {
  auto dataset =
      sequential_chunks(Shelves({2, 2, 2}, /*bad=*/1), datasets::ChunkDatasetOptions(1, 2));
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(2));
  std::vector<int> values;
  std::string error;
  for (auto it = loader->begin(); it != loader->end();) {
    values.insert(values.end(), it->begin(), it->end());
    try {
      ++it;
    } catch (const data::WorkerException& e) {
      error = e.what();
      EXPECT_THROW(std::rethrow_exception(e.original_exception), std::runtime_error);
      ++it;
    }
  }
  EXPECT_EQ(values, (std::vector<int>{0, 1, 200, 201}));
  EXPECT_NE(error.find("shelf 1 fell"), std::string::npos) << error;
}

TEST(DataChunk, OptionsAndMisuseAreErrors) {
  using Options = datasets::ChunkDatasetOptions;
  expect_error([] { Options(0, 1); }, {"Preloader count is 0"});
  expect_error([] { Options(1, 0); }, {"Batch size is 0"});
  expect_error([] { Options(1, 1, 0); }, {"Cache size is 0"});
  expect_error([] { Options(1, 10, 5); },
               {"Cache size is less than batch size", "cache_size 5 and batch_size 10"});
  expect_error([] { Options(1, 1, 1, 0); },
               {"cross_chunk_shuffle_count needs to be greater than 0"});
  expect_error([] { sequential_chunks(Shelves({1}), Options(1, 1).preloader_count(0)); },
               {"Preloader count is 0"});

  auto dataset = sequential_chunks(Shelves({3}), Options(1, 2));
  expect_error([&] { dataset->get_batch(2); },
               {"needs to call reset() before calling get_batch()"});
  dataset->reset();
  expect_error([&] { dataset->get_batch(5); },
               {"The requested batch size is 5, while the dataset is created with batch size "
                "equal to 2"});
  EXPECT_EQ(dataset->get_batch().value(), (std::vector<int>{0, 1}));
  EXPECT_FALSE(datasets::SharedBatchDataset<SequentialChunks>(dataset).size().has_value());
}

TEST(DataChunk, DestroyingMidEpochDoesNotHang) {
  // The buffer holds one batch; the preloader waits to add more when the dataset goes.
  auto dataset = sequential_chunks(Shelves({4, 4, 4}), datasets::ChunkDatasetOptions(2, 2, 2));
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(2));
  auto it = loader->begin();
  EXPECT_EQ(it->size(), 2u);
}

TEST(DataChunk, SaveAndLoadResumeFromTheChunkSampler) {
  // Skip the first two chunks through a checkpoint of the chunk sampler.
  samplers::SequentialSampler position(0);
  position.reset(3);
  position.next(2);
  std::stringstream checkpoint;
  nabla::save(position, checkpoint);
  auto dataset = sequential_chunks(Shelves({2, 2, 3}), datasets::ChunkDatasetOptions(1, 3));
  nabla::load(*dataset, checkpoint);
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(3));
  EXPECT_EQ(stateful_epoch(*loader), (std::vector<std::vector<int>>{{200, 201, 202}}));
  EXPECT_EQ(flatten(stateful_epoch(*loader)).size(), 7u) << "the next epoch starts over";
  std::stringstream saved;
  nabla::save(*dataset, saved);
  samplers::SequentialSampler restored(0);
  nabla::load(restored, saved);
  EXPECT_EQ(restored.index(), 3u);
}

TEST(DataSamplerArchive, SequentialAndRandomResume) {
  samplers::SequentialSampler seq(10);
  seq.next(4);
  std::stringstream s1;
  nabla::save(seq, s1);
  samplers::SequentialSampler seq2(3);
  nabla::load(seq2, s1);
  EXPECT_EQ(seq2.index(), 4u);
  EXPECT_EQ(seq2.next(100).value(), (std::vector<size_t>{4, 5, 6, 7, 8, 9}));

  nabla::manual_seed(3);
  samplers::RandomSampler rnd(20);
  rnd.next(5);
  std::stringstream s2;
  nabla::save(rnd, s2);
  samplers::RandomSampler rnd2(2);
  nabla::load(rnd2, s2);
  EXPECT_EQ(rnd2.index(), 5u);
  EXPECT_EQ(rnd2.next(100).value(), rnd.next(100).value());

  samplers::StreamSampler stream(9);
  stream.next(4);
  std::stringstream s3;
  nabla::save(stream, s3);
  samplers::StreamSampler stream2(0);
  nabla::load(stream2, s3);
  EXPECT_EQ(stream2.next(100).value().size(), 5u);
}

TEST(DataSamplerArchive, DistributedSamplersResume) {
  samplers::DistributedRandomSampler a(10, 2, 1);
  a.set_epoch(4);
  a.reset();
  a.next(2);
  std::stringstream s;
  nabla::save(a, s);
  samplers::DistributedRandomSampler b(10, 2, 1);
  nabla::load(b, s);
  EXPECT_EQ(b.epoch(), 4u);
  EXPECT_EQ(b.index(), a.index());
  EXPECT_EQ(b.next(10).value(), a.next(10).value());

  samplers::DistributedSequentialSampler c(10, 2, 1);
  c.next(3);
  std::stringstream s2;
  nabla::save(c, s2);
  samplers::DistributedSequentialSampler d(10, 2, 1);
  nabla::load(d, s2);
  EXPECT_EQ(d.next(10).value(), (std::vector<size_t>{8, 9}));
}

TEST(DataSamplerArchive, BadArchivesAreErrors) {
  auto archive_of = [](auto&& fill) {
    nabla::serialize::OutputArchive out;
    fill(out);
    std::stringstream stream;
    out.save_to(stream);
    return stream;
  };
  samplers::SequentialSampler seq(5);
  auto missing = archive_of([](auto& out) { out.write("size", int64_t{5}); });
  expect_error([&] { nabla::load(seq, missing); }, {"index"});
  auto negative = archive_of([](auto& out) { out.write("index", int64_t{-1}); });
  expect_error([&] { nabla::load(seq, negative); }, {"SequentialSampler", "'index' is -1"});
  auto past = archive_of([](auto& out) {
    out.write("index", int64_t{9});
    out.write("size", int64_t{5});
  });
  expect_error([&] { nabla::load(seq, past); }, {"'index' 9 is past the end"});
  samplers::RandomSampler rnd(3);
  auto not_a_permutation = archive_of([](auto& out) {
    out.write("indices", nabla::tensor({0, 7, 1}, nabla::kLong));
    out.write("index", int64_t{0});
  });
  expect_error([&] { nabla::load(rnd, not_a_permutation); }, {"'indices' holds 7"});
  samplers::DistributedSequentialSampler dist(10, 2, 1);
  auto outside = archive_of([](auto& out) {
    out.write("epoch", int64_t{0});
    out.write("sample_index", int64_t{1});
  });
  expect_error([&] { nabla::load(dist, outside); }, {"outside this replica's share [5, 10]"});
}
