// Datasets, transforms, samplers, the data loader, IDX/CSV readers, progress bar, SVG.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

namespace data = nabla::data;
using nabla::Tensor;
using nabla::testing::expect_error;

namespace {

std::string temp_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("nabla_data_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void write_gz(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// n images of 28x28 whose pixels all equal the image index, and labels i % 10.
void write_tiny_mnist(const std::string& root, const std::string& split, uint32_t n, bool gz) {
  std::string images = std::string("\0\0\x08\x03", 4) + be32(n) + be32(28) + be32(28);
  std::string labels = std::string("\0\0\x08\x01", 4) + be32(n);
  for (uint32_t i = 0; i < n; ++i) {
    images += std::string(784, static_cast<char>(i));
    labels += static_cast<char>(i % 10);
  }
  auto w = gz ? write_gz : write_file;
  w(root + "/" + split + "-images-idx3-ubyte" + (gz ? ".gz" : ""), images);
  w(root + "/" + split + "-labels-idx1-ubyte" + (gz ? ".gz" : ""), labels);
}

// Example i is (data = [i], target = i); get() throws at `poison`.
struct Numbers : data::datasets::Dataset<Numbers> {
  explicit Numbers(size_t n, int64_t poison = -1) : n(n), poison(poison) {}
  data::Example<> get(size_t i) override {
    NABLA_CHECK(static_cast<int64_t>(i) != poison, "Numbers: poisoned index ", i);
    return {nabla::full({1}, static_cast<double>(i)),
            nabla::scalar_tensor(static_cast<int64_t>(i), nabla::kLong)};
  }
  nabla::optional<size_t> size() const override { return n; }
  size_t n;
  int64_t poison;
};

std::vector<int64_t> targets_in_order(auto& loader) {
  std::vector<int64_t> out;
  for (auto& batch : loader) {
    Tensor t = batch.target.contiguous();
    for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.data_ptr<int64_t>()[i]);
  }
  return out;
}

}  // namespace

TEST(Data, SequentialLoaderBatchesAndDropLast) {
  auto ds = Numbers(10).map(data::transforms::Stack<>());
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      std::move(ds), data::DataLoaderOptions(4));
  std::vector<int64_t> sizes;
  for (auto& batch : *loader) sizes.push_back(batch.data.size(0));
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
  auto dropping = data::make_data_loader<data::samplers::SequentialSampler>(
      Numbers(10).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).drop_last(true));
  std::vector<int64_t> all = targets_in_order(*dropping);
  EXPECT_EQ(all, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Data, WorkersKeepOrderAndRandomSamplerIsSeeded) {
  auto sequential = [](size_t workers) {
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Numbers(103).map(data::transforms::Stack<>()), data::DataLoaderOptions(8).workers(workers));
    return targets_in_order(*loader);
  };
  auto expected = sequential(0);
  EXPECT_EQ(sequential(3), expected);
  auto random = [](size_t workers) {
    nabla::manual_seed(7);
    auto loader = data::make_data_loader(Numbers(50).map(data::transforms::Stack<>()),
                                         data::DataLoaderOptions(6).workers(workers));
    auto first = targets_in_order(*loader);
    auto second = targets_in_order(*loader);  // a new epoch: a new permutation
    first.insert(first.end(), second.begin(), second.end());
    return first;
  };
  auto r0 = random(0), r2 = random(2);
  EXPECT_EQ(r0, r2);
  std::set<int64_t> epoch(r0.begin(), r0.begin() + 50);
  EXPECT_EQ(epoch.size(), 50u);
  EXPECT_NE(std::vector<int64_t>(r0.begin(), r0.begin() + 50),
            std::vector<int64_t>(r0.begin() + 50, r0.end()));
}

TEST(Data, WorkerExceptionReachesTheLoopAndEarlyBreakDoesNotHang) {
  for (size_t workers : {0, 2}) {
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Numbers(40, 17).map(data::transforms::Stack<>()),
        data::DataLoaderOptions(4).workers(workers));
    int seen = 0;
    std::string message;
    try {
      for (auto& batch : *loader) {
        (void)batch;
        ++seen;
      }
    } catch (const std::exception& e) {  // nabla::Error, or a WorkerException wrapping it
      message = e.what();
    }
    EXPECT_NE(message.find("poisoned index 17"), std::string::npos) << message;
    EXPECT_EQ(seen, 4) << "batches before the failing one arrive in order";
  }
  auto loader = data::make_data_loader(Numbers(1000).map(data::transforms::Stack<>()),
                                       data::DataLoaderOptions(2).workers(2));
  for (auto& batch : *loader) {
    (void)batch;
    break;
  }
  for (auto& batch : *loader) {  // restart after a break
    EXPECT_EQ(batch.data.size(0), 2);
    break;
  }
}  // destructor joins the workers mid-epoch

TEST(Data, TransformsNormalizeLambdaTensorPairDataset) {
  data::datasets::TensorPairDataset ds(nabla::arange(12, nabla::kFloat).view({3, 1, 2, 2}),
                                       nabla::arange(3, nabla::kLong));
  auto mapped = std::move(ds)
                    .map(data::transforms::Normalize<>(1.0, 2.0))
                    .map(data::transforms::Lambda<data::Example<>>([](data::Example<> e) {
                      return data::Example<>{e.data * 10, e.target};
                    }))
                    .map(data::transforms::Stack<>());
  auto batch = mapped.get_batch({2, 0});
  EXPECT_EQ(batch.data.sizes().vec(), (std::vector<int64_t>{2, 1, 2, 2}));
  EXPECT_NEAR(batch.data[0][0][0][0].item<double>(), (8 - 1) / 2.0 * 10, 1e-5);
  EXPECT_EQ(batch.target[1].item<int64_t>(), 0);
  expect_error(
      [] {
        data::datasets::TensorPairDataset(nabla::ones({3, 2}), nabla::ones({4}));
      },
      {"first dimension"});
}

// Normalize per channel, with its moments public (as LibTorch's mean and stddev); the
// tensor transforms keep targets of any type.
TEST(Data, NormalizeChannelsAndTensorLambdaTargets) {
  data::transforms::Normalize<> normalize({1.0, 2.0}, {0.5, 4.0});
  EXPECT_EQ(normalize.mean.sizes().vec(), (std::vector<int64_t>{2, 1, 1}));
  Tensor out = normalize(nabla::full({2, 1, 2}, 3.0));
  EXPECT_NEAR(out[0][0][0].item<double>(), (3 - 1) / 0.5, 1e-6);
  EXPECT_NEAR(out[1][0][1].item<double>(), (3 - 2) / 4.0, 1e-6);
  expect_error([] { data::transforms::Normalize<>(std::vector<double>{}, 1.0); },
               {"Normalize: mean needs at least one value"});
  data::transforms::TensorLambda<std::string> twice([](Tensor t) { return t * 2; });
  auto batch = twice.apply_batch({{nabla::full({1}, 1.5), "a"}, {nabla::full({1}, -1.0), "b"}});
  EXPECT_EQ(batch[0].data.item<float>(), 3.0f);
  EXPECT_EQ(batch[1].data.item<float>(), -2.0f);
  EXPECT_EQ(batch[1].target, "b");
}

// Collation (a BatchTransform to one value) and Collate (its lambda form), as LibTorch.
struct SumRows : data::transforms::Collation<data::TensorExample> {
  data::TensorExample apply_batch(std::vector<data::TensorExample> batch) override {
    nabla::Tensor total = nabla::zeros({2});
    for (const auto& e : batch) total = total + e.data;
    return total;
  }
};
TEST(Data, CollationAndCollateReduceABatch) {
  auto rows = nabla::arange(8, nabla::kFloat).view({4, 2});
  auto summed = data::datasets::TensorDataset(rows).map(SumRows());
  nabla::Tensor s = summed.get_batch({0, 3}).data;
  EXPECT_EQ(s[0].item<float>(), 0.0f + 6.0f);
  auto counted = data::datasets::TensorDataset(rows).map(
      data::transforms::Collate<data::TensorExample>([](std::vector<data::TensorExample> b) {
        return data::TensorExample(nabla::tensor(double(b.size())));
      }));
  EXPECT_EQ(counted.get_batch({1, 2, 3}).data.item<double>(), 3.0);
}

// LibTorch's TensorDataset: one tensor, examples are its rows without targets.
TEST(Data, TensorDatasetRowsAsTensorExamples) {
  auto rows = nabla::arange(12, nabla::kFloat).view({6, 2});
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      data::datasets::TensorDataset(rows).map(data::transforms::Stack<data::TensorExample>()), 4);
  std::vector<int64_t> batch_rows;
  for (auto& batch : *loader) {
    nabla::Tensor t = batch.data;
    batch_rows.push_back(t.size(0));
    EXPECT_EQ(t.size(1), 2);
  }
  EXPECT_EQ(batch_rows, (std::vector<int64_t>{4, 2}));
  data::datasets::TensorDataset from_list({nabla::ones({2}), nabla::zeros({2})});
  EXPECT_EQ(from_list.size().value(), 2u);
  nabla::Tensor second = from_list.get(1);  // TensorExample converts to its tensor
  EXPECT_EQ(second.sum().item<float>(), 0.0f);
  expect_error([&] { from_list.get(2); }, {"TensorDataset", "out of range"});
  expect_error([] { data::datasets::TensorDataset(nabla::tensor(1.0)); },
               {"TensorDataset", "at least one dimension"});
}

TEST(Data, MnistRawAndGzipAndCorruptFiles) {
  const std::string root = temp_dir();
  write_tiny_mnist(root, "train", 5, false);
  write_tiny_mnist(root, "t10k", 3, true);
  data::datasets::MNIST train(root);
  data::datasets::MNIST test(root, data::datasets::MNIST::Mode::kTest);
  EXPECT_EQ(train.size().value(), 5u);
  EXPECT_EQ(test.size().value(), 3u);
  auto e = train.get(4);
  EXPECT_EQ(e.data.sizes().vec(), (std::vector<int64_t>{1, 28, 28}));
  EXPECT_NEAR(e.data.max().item<double>(), 4.0 / 255, 1e-7);
  EXPECT_EQ(e.target.item<int64_t>(), 4);
  EXPECT_EQ(e.target.scalar_type(), nabla::kLong);

  const std::string bad = root + "/bad";
  std::filesystem::create_directories(bad);
  write_tiny_mnist(bad, "train", 4, false);
  std::string images;
  {
    std::ifstream in(bad + "/train-images-idx3-ubyte", std::ios::binary);
    images.assign(std::istreambuf_iterator<char>(in), {});
  }
  write_file(bad + "/train-images-idx3-ubyte", images.substr(0, images.size() - 10));
  expect_error([&] { data::datasets::MNIST m(bad); }, {"truncated"});
  // A header declaring far more data than the file holds: an error, not an allocation.
  write_file(bad + "/train-images-idx3-ubyte",
             std::string("\0\0\x08\x03", 4) + be32(1000000) + be32(28) + be32(28));
  expect_error([&] { data::datasets::MNIST m(bad); }, {"truncated"});
  write_file(bad + "/train-images-idx3-ubyte",
             std::string("\0\0\x08\x03", 4) + be32(0xffffffff) + be32(28) + be32(28));
  expect_error([&] { data::datasets::MNIST m(bad); }, {"absurd size"});
  write_file(bad + "/train-images-idx3-ubyte", "PK\x03\x04junk");
  expect_error([&] { data::datasets::MNIST m(bad); }, {"not an IDX"});
  expect_error([&] { data::datasets::MNIST m(root + "/nowhere"); }, {"train-images-idx3-ubyte"});
  expect_error([&] { train.get(5); }, {"out of range"});
}

TEST(Data, FashionMnistFromDebian) {
  if (!std::filesystem::exists(data::fashion_mnist_root() + "/t10k-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  data::datasets::MNIST test(data::fashion_mnist_root(), data::datasets::MNIST::Mode::kTest);
  EXPECT_EQ(test.size().value(), 10000u);
  EXPECT_EQ(test.targets().max().item<int64_t>(), 9);
  EXPECT_NEAR(test.images().mean().item<double>(), 0.2868, 0.01);
}

TEST(Data, CsvReader) {
  const std::string path = temp_dir() + "/x.csv";
  write_file(path, "a,b,c\n1,2,3\n4.5,-5,6e1\n");
  Tensor t = data::read_csv(path);
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_NEAR(t[1][2].item<double>(), 60, 1e-5);
  write_file(path, "1,2\n3\n");
  expect_error([&] { data::read_csv(path); }, {"line 2", "1 columns, expected 2"});
  write_file(path, "1,2\n3,x\n");
  expect_error([&] { data::read_csv(path); }, {"line 2", "'x'"});
}

TEST(Utils, ProgressBarPlainLinesAndSvg) {
  std::ostringstream out;
  {
    nabla::utils::ProgressBar bar(20, "epoch 1", out, false);
    for (int i = 0; i < 20; ++i) {
      bar.set_postfix("loss=0.5");
      bar.update();
    }
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("epoch 1 100% |########################| 20/20"), std::string::npos) << text;
  EXPECT_NE(text.find("loss=0.5"), std::string::npos);
  const auto lines = std::count(text.begin(), text.end(), '\n');
  EXPECT_GE(lines, 10);
  EXPECT_LE(lines, 12);
  EXPECT_EQ(text.find('\r'), std::string::npos);

  std::string svg =
      nabla::utils::render_svg({{"loss", {1.0, 0.5, 0.25}}, {"acc <%>", {0.5, 0.8, 0.9}, true}},
                               nabla::utils::PlotOptions().title("t").x_label("epoch"));
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("acc &lt;%&gt;"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '<') - std::count(svg.begin(), svg.end(), '>'), 0);
  const std::string path = temp_dir() + "/c.svg";
  nabla::utils::plot_svg(path, {{"loss", {3, 2, 1}}});
  EXPECT_TRUE(std::filesystem::file_size(path) > 100);
}
