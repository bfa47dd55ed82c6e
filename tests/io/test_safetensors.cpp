// safetensors archives, nabla::save/load of tensors and modules, corrupt-file handling.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

namespace fs = std::filesystem;
using nabla::Tensor;
using nabla::testing::expect_error;
using nabla::testing::temp_path;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

// The expected bytes of a file holding "a" = float32 [1.0, -2.0] (shape [2]) and
// "b" = int64 [[7]], built by hand from the format description.
std::string golden_file() {
  std::string header =
      R"({"a":{"data_offsets":[0,8],"dtype":"F32","shape":[2]},"b":{"data_offsets":[8,16],"dtype":"I64","shape":[1,1]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string data;
  const unsigned char a[8] = {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0};  // 1.0f, -2.0f
  data.append(reinterpret_cast<const char*>(a), 8);
  data += le64(7);
  return le64(header.size()) + header + data;
}

struct SmallNetImpl : nabla::nn::Module {
  SmallNetImpl(int64_t hidden = 3) {
    fc = register_module("fc", nabla::nn::Linear(2, hidden));
    head = register_module("head", nabla::nn::Sequential(nabla::nn::Linear(hidden, 1)));
    register_buffer("count", nabla::zeros({1}, nabla::kLong));
  }
  nabla::nn::Linear fc = nullptr;
  nabla::nn::Sequential head = nullptr;
};
NABLA_MODULE(SmallNet);

}  // namespace

TEST(Safetensors, GoldenBytesBothWays) {
  const std::string path = temp_path("golden.safetensors");
  write_bytes(path, golden_file());
  nabla::serialize::InputArchive in;
  in.load_from(path);
  EXPECT_EQ(in.keys().size(), 2u);
  Tensor a, b;
  in.read("a", a);
  in.read("b", b);
  EXPECT_EQ(a.scalar_type(), nabla::kFloat);
  EXPECT_EQ(nabla::testing::values(a), (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ(b.sizes().vec(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(b.item<int64_t>(), 7);

  nabla::serialize::OutputArchive out;
  out.write("a", nabla::tensor({1.0f, -2.0f}));
  out.write("b", nabla::full({1, 1}, 7, nabla::kLong));
  const std::string written = temp_path("written.safetensors");
  out.save_to(written);
  EXPECT_EQ(read_bytes(written), golden_file());
}

TEST(Safetensors, RoundTripDtypesLayoutsMetadata) {
  nabla::serialize::OutputArchive out;
  Tensor f = nabla::randn({3, 4}).t();  // non-contiguous
  Tensor d = nabla::randn({2}, nabla::kDouble);
  Tensor i = nabla::arange(6, nabla::kInt).view({2, 3});
  Tensor u = nabla::arange(4, nabla::kByte);
  Tensor i8 = nabla::arange(-3, 3, nabla::kChar);
  Tensor i16 = nabla::arange(-3, 3, nabla::kShort) * 1000;
  Tensor bo = nabla::tensor({true, false, true});
  Tensor empty = nabla::zeros({0, 3});
  Tensor scalar = nabla::scalar_tensor(2.5);
  out.write("f", f);
  out.write("d", d);
  out.write("i", i);
  out.write("u", u);
  out.write("i8", i8);
  out.write("i16", i16);
  out.write("bo", bo);
  out.write("empty", empty);
  out.write("scalar", scalar);
  out.write("step", int64_t{42});
  out.write_metadata("format", "pt");
  std::stringstream stream;
  out.save_to(stream);
  nabla::serialize::InputArchive in;
  in.load_from(stream);
  for (auto [key, want] : std::vector<std::pair<std::string, Tensor>>{{"f", f},
                                                                      {"d", d},
                                                                      {"i", i},
                                                                      {"u", u},
                                                                      {"i8", i8},
                                                                      {"i16", i16},
                                                                      {"bo", bo},
                                                                      {"empty", empty},
                                                                      {"scalar", scalar}}) {
    Tensor got;
    in.read(key, got);
    EXPECT_EQ(got.scalar_type(), want.scalar_type()) << key;
    EXPECT_TRUE(got.equal(want)) << key;
  }
  int64_t step = 0;
  in.read("step", step);
  EXPECT_EQ(step, 42);
  EXPECT_EQ(in.read_metadata("format").value_or(""), "pt");
  EXPECT_FALSE(in.read_metadata("nothing").has_value());
  EXPECT_TRUE(in.unread_keys().empty());
}

TEST(Safetensors, SaveLoadTensorsAndVectors) {
  const std::string path = temp_path("tensors.safetensors");
  Tensor t = nabla::randn({5});
  nabla::save(t, path);
  Tensor back;
  nabla::load(back, path);
  EXPECT_TRUE(back.equal(t));
  std::vector<Tensor> ts{nabla::ones({2}), nabla::arange(3, nabla::kLong)};
  nabla::save(ts, path);
  std::vector<Tensor> got;
  nabla::load(got, path);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[1].equal(ts[1]));
  expect_error([&] { nabla::load(back, path); }, {"2 tensors"});
}

TEST(Safetensors, ModuleRoundTripAndChecks) {
  const std::string path = temp_path("module.safetensors");
  SmallNet a, b;
  a->fc->weight.data().fill_(0.5);
  nabla::save(a, path);
  nabla::serialize::InputArchive in;
  in.load_from(path);
  // The module's own buffer first, then its children's entries, in registration order.
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"count", "fc.weight", "fc.bias", "head.0.weight",
                                                 "head.0.bias"}));
  Tensor w_before = b->fc->weight;
  nabla::load(b, path);
  EXPECT_TRUE(b->fc->weight.equal(a->fc->weight));
  EXPECT_TRUE(b->head->ptr<nabla::nn::LinearImpl>(0)->bias.equal(
      a->head->ptr<nabla::nn::LinearImpl>(0)->bias));
  EXPECT_EQ(w_before.data_ptr(), b->fc->weight.data_ptr()) << "loaded in place";
  EXPECT_TRUE(b->fc->weight.requires_grad());

  SmallNet wider(4);
  expect_error([&] { nabla::load(wider, path); }, {"fc.weight", "shape", "[3, 2]", "[4, 2]"});
  // Extra entries in the file are reported by name.
  nabla::serialize::OutputArchive extra;
  a->save(extra);
  extra.write("surplus", nabla::ones({1}));
  extra.save_to(path);
  expect_error([&] { nabla::load(b, path); }, {"surplus"});
  // Missing entries too.
  nabla::serialize::OutputArchive partial;
  partial.write("count", a->named_buffers()["count"]);
  partial.write("fc.weight", a->fc->weight);
  partial.save_to(path);
  expect_error([&] { nabla::load(b, path); },
               {"missing from the file (3): fc.bias, head.0.weight"});
  // Dtype mismatch.
  SmallNet dbl;
  dbl->to(nabla::kDouble);
  nabla::save(a, path);
  expect_error([&] { nabla::load(dbl, path); }, {"dtype", "Float", "Double"});
}

TEST(Safetensors, AtomicWriteKeepsOldFileOnFailure) {
  const std::string path = temp_path("atomic.safetensors");
  nabla::save(nabla::ones({3}), path);
  const std::string before = read_bytes(path);
  // Writing into a missing directory fails without touching anything.
  expect_error([&] { nabla::save(nabla::ones({3}), temp_path("no_such_dir/x.safetensors")); },
               {"cannot create"});
  // A failing save (undefined tensor) leaves the old file as it was.
  expect_error(
      [&] {
        nabla::save(std::vector<Tensor>{nabla::ones({1}), Tensor()}, path);
      },
      {"undefined"});
  EXPECT_EQ(read_bytes(path), before);
  for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos)
        << "temporary file left behind";
}

TEST(Safetensors, HostileHeadersAreClearErrors) {
  const std::string path = temp_path("hostile.safetensors");
  auto expect_load_error = [&](const std::string& bytes, const std::string& fragment) {
    write_bytes(path, bytes);
    nabla::serialize::InputArchive in;
    expect_error([&] { in.load_from(path); }, {fragment});
  };
  auto file = [](const std::string& header, const std::string& data) {
    return le64(header.size()) + header + data;
  };
  expect_load_error("abc", "too short");
  expect_load_error(le64(1ull << 62) + "{}", "header length");
  expect_load_error(file("{not json", ""), "not valid JSON");
  expect_load_error(file("[1, 2]", ""), "not a JSON object");
  expect_load_error(file(R"({"x":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", "a"),
                    "F8_E4M3");
  expect_load_error(file(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "abcd"),
                    "outside");
  expect_load_error(file(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", "abcdefgh"),
                    "need");
  expect_load_error(
      file(
          R"({"x":{"dtype":"F32","shape":[4611686018427387904,4611686018427387904],"data_offsets":[0,8]}})",
          "abcdefgh"),
      "overflows");
  expect_load_error(file(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "abcd"),
                    "non-negative");
  expect_load_error(
      file(
          R"({"x":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"y":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
          "abc"),
      "overlapping");
  expect_load_error(file(R"({"x":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", "abcd"),
                    "cover");
  expect_load_error(file(R"({"x":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}})", "\x07"),
                    "BOOL");
  expect_load_error(file(R"({"x":{"dtype":"U8","shape":[1]}})", "a"), "data_offsets");
  expect_load_error(file(R"({"__metadata__":{"a":1}})", ""), "not a string");
  nabla::serialize::InputArchive in;
  expect_error([&] { in.load_from(temp_path("missing.safetensors")); }, {"cannot open"});
}

// Every truncation and thousands of random byte flips of a valid file: each either loads
// or raises nabla::Error (never crashes; sanitizer builds check the memory side).
TEST(Safetensors, FuzzTruncationsAndFlips) {
  nabla::serialize::OutputArchive out;
  out.write("w", nabla::randn({4, 3}));
  out.write("i", nabla::arange(5, nabla::kLong));
  out.write("b", nabla::tensor({true, false}));
  out.write_metadata("note", "fuzz");
  std::stringstream s;
  out.save_to(s);
  const std::string valid = s.str();
  int loaded = 0, rejected = 0;
  auto attempt = [&](const std::string& bytes) {
    std::stringstream in_stream(bytes);
    nabla::serialize::InputArchive in;
    try {
      in.load_from(in_stream);
      ++loaded;
    } catch (const nabla::Error&) {
      ++rejected;
    }
  };
  for (size_t n = 0; n < valid.size(); ++n) attempt(valid.substr(0, n));
  EXPECT_EQ(loaded, 0) << "every truncation must be rejected";
  std::mt19937 rng(123);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = valid;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xff);
    attempt(bytes);
  }
  EXPECT_GT(rejected, 1000);
}

// IValues keep their kind through an archive; a plain tensor stays a tensor.
TEST(Safetensors, IValuesRoundTripWithTheirKind) {
  nabla::serialize::OutputArchive out;
  out.write("i", nabla::IValue(int64_t{7}));
  out.write("d", nabla::IValue(2.5));
  out.write("b", nabla::IValue(true));
  out.write("s", nabla::IValue(std::string("hello")));
  out.write("t", nabla::IValue(nabla::arange(3)));
  out.write("zero_d", nabla::scalar_tensor(int64_t{4}, nabla::kLong));
  expect_error(
      [&] {
        out.write("l", nabla::IValue(std::vector<int64_t>{1, 2}));
      },
      {"write", "'l'", "IntList"});
  const std::string path = temp_path("ivalues.pt");
  out.save_to(path);
  nabla::serialize::InputArchive in;
  in.load_from(path);
  nabla::IValue v;
  in.read("i", v);
  ASSERT_TRUE(v.isInt());
  EXPECT_EQ(v.toInt(), 7);
  in.read("d", v);
  ASSERT_TRUE(v.isDouble());
  EXPECT_EQ(v.toDouble(), 2.5);
  in.read("b", v);
  ASSERT_TRUE(v.isBool());
  EXPECT_TRUE(v.toBool());
  in.read("s", v);
  ASSERT_TRUE(v.isString());
  EXPECT_EQ(v.toStringRef(), "hello");
  in.read("t", v);
  ASSERT_TRUE(v.isTensor());
  EXPECT_TRUE(v.toTensor().equal(nabla::arange(3)));
  in.read("zero_d", v);
  EXPECT_TRUE(v.isTensor());
  EXPECT_FALSE(in.try_read("missing", v));
  expect_error([&] { in.read("missing", v); }, {"does not have a field with name 'missing'"});
}

// save and load through functions and memory, as LibTorch's overloads.
TEST(Safetensors, SaveAndLoadThroughFunctions) {
  Tensor x = nabla::randn({4, 3});
  std::string bytes;
  nabla::save(x, [&](const void* data, size_t n) {
    bytes.append(static_cast<const char*>(data), n);
    return n;
  });
  Tensor y;
  nabla::load(y, bytes.data(), bytes.size());
  EXPECT_TRUE(y.equal(x));
  Tensor z;
  nabla::load(
      z,
      [&](uint64_t pos, void* buf, size_t n) -> size_t {
        const size_t k = std::min<size_t>(n, 5);  // short reads are fine
        std::memcpy(buf, bytes.data() + pos, std::min<size_t>(k, bytes.size() - pos));
        return std::min<size_t>(k, bytes.size() - pos);
      },
      [&]() -> size_t { return bytes.size(); });
  EXPECT_TRUE(z.equal(x));
  expect_error([&] { nabla::save(x, [](const void*, size_t n) { return n / 2; }); },
               {"save", "writer function took"});
  expect_error(
      [&] {
        nabla::load(
            z, [](uint64_t, void*, size_t) -> size_t { return 0; },
            [&]() -> size_t { return bytes.size(); });
      },
      {"load", "read function returned 0"});
  expect_error([&] { nabla::load(z, bytes.data(), bytes.size() / 2); }, {"load"});
}

// A module whose submodule has nothing in the file: the error names the submodule too.
TEST(Safetensors, LoadNamesAMissingSubmodule) {
  struct Inner : nabla::nn::Module {
    Inner() { register_parameter("c", nabla::ones({1})); }
  };
  struct Outer : nabla::nn::Module {
    explicit Outer(const std::string& name) { register_module(name, std::make_shared<Inner>()); }
  };
  auto saved = std::make_shared<Outer>("b");
  auto other = std::make_shared<Outer>("x");
  std::stringstream stream;
  nabla::save(saved, stream);
  expect_error([&] { nabla::load(other, stream); },
               {"No such serialized submodule: 'x'", "No such serialized tensor 'x.c'"});
}
