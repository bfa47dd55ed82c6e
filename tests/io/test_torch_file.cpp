// PyTorch's torch.save format (src/serialize/torch_file.h, pickle.h): files written by
// Debian's python3-torch at test time (tests/io/torch_fixtures.py) read into nabla; files
// nabla writes read by torch.load(weights_only=True); and every malformed or hostile case
// a clear nabla::Error (Note [Restricted unpickling]).
#include <chrono>
#include <cstdlib>
#include <random>

#include "nabla/serialize/detail/zip.h"
#include "serialize/torch_file.h"
#include "test_util.h"

namespace nabla::testing {
namespace {
using namespace std::string_literals;

// torch_fixtures.py's value(n, dtype).
Tensor value(int64_t n, ScalarType dtype) {
  const Tensor i = arange(n, TensorOptions(kLong));
  if (dtype == kBool) return (i % 3).eq(0);
  if (dtype == kByte) return (i * 7).to(kByte);
  return (arange(n, TensorOptions(kDouble)) * 0.75 - 3).to(dtype);
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The fixtures, made once per process.
const std::string& fixtures() {
  static const std::string dir = [] {
    const std::string d = temp_path("torch_fixtures");
    std::filesystem::create_directories(d);
    const std::string cmd =
        torch_python() + " " + NABLA_TEST_SOURCE_DIR + "/io/torch_fixtures.py make " + d;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return d;
  }();
  return dir;
}

IValue load_fixture(const std::string& name) {
  return pickle_load(read_bytes(fixtures() + "/" + name));
}

TEST(TorchFile, ReadsEveryDtypePythonWrites) {
  NABLA_REQUIRE_TORCH_PYTHON();
  const IValue v = load_fixture("dtypes.pt");
  ASSERT_TRUE(v.isGenericDict());
  const std::vector<std::pair<std::string, ScalarType>> want = {
      {"f32", kFloat}, {"f64", kDouble}, {"f16", kHalf}, {"bf16", kBFloat16}, {"i64", kLong},
      {"i32", kInt},   {"i16", kShort},  {"i8", kChar},  {"u8", kByte},       {"b", kBool}};
  const auto& dict = v.toGenericDict();
  ASSERT_EQ(dict.size(), want.size());
  for (const auto& [key, dtype] : want) {
    const Tensor& t = dict.at(key).toTensor();
    EXPECT_EQ(t.scalar_type(), dtype) << key;
    EXPECT_EQ(shape(t), (std::vector<int64_t>{2, 3})) << key;
    EXPECT_EQ(values(t), values(value(6, dtype).reshape({2, 3}))) << key;
  }
}

TEST(TorchFile, ViewsShareStoragesWithOffsetsAndStrides) {
  NABLA_REQUIRE_TORCH_PYTHON();
  const IValue v = load_fixture("shared.pt");
  const auto& d = v.toGenericDict();
  const Tensor base = d.at("base").toTensor(), t = d.at("t").toTensor(),
               col = d.at("col").toTensor(), tail = d.at("tail").toTensor();
  EXPECT_TRUE(base.equal(value(12, kFloat).reshape({3, 4})));
  for (const Tensor& view : {t, col, tail}) EXPECT_TRUE(view.is_alias_of(base));
  EXPECT_TRUE(t.equal(base.t()));
  EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{1, 4}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(col.equal(base.select(1, 1)));
  EXPECT_EQ(col.storage_offset(), 1);
  EXPECT_TRUE(tail.equal(base.view({-1}).slice(0, 5, 9)));
  // Sharing is real: a write through the base shows in the views (after loading, the
  // tensors own their memory; the file is not touched).
  base.fill_(2.0);
  EXPECT_EQ(values(tail), (std::vector<double>(4, 2.0)));
  const Tensor param = d.at("param").toTensor();
  EXPECT_TRUE(param.requires_grad());
  EXPECT_TRUE(param.is_leaf());
  EXPECT_TRUE(param.detach().equal(value(4, kFloat)));
  EXPECT_EQ(d.at("scalar").toTensor().dim(), 0);
  EXPECT_EQ(d.at("scalar").toTensor().item<int64_t>(), 7);
  EXPECT_EQ(shape(d.at("empty").toTensor()), (std::vector<int64_t>{0, 3}));
}

TEST(TorchFile, NestedValuesAndTheirArchiveKeys) {
  NABLA_REQUIRE_TORCH_PYTHON();
  const IValue v = load_fixture("nested.pt");
  const auto& d = v.toGenericDict();
  EXPECT_TRUE(d.at("model").toGenericDict().at("w").toTensor().equal(value(4, kFloat)));
  EXPECT_EQ(d.at("epoch").toInt(), 3);
  EXPECT_EQ(d.at("lr").toDouble(), 0.5);
  EXPECT_EQ(d.at("name").toStringRef(), "run-1");
  const auto& flags = d.at("flags").toList();
  ASSERT_EQ(flags.size(), 3u);
  EXPECT_TRUE(flags[0].toBool());
  EXPECT_TRUE(flags[1].isNone());
  EXPECT_EQ(d.at("pair").toIntVector(), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(d.at("big").toInt(), int64_t{1} << 40);
  EXPECT_EQ(d.at("neg").toInt(), -70000);
  // As an archive: nested keys joined by dots, numbers as 0-d tensors, strings as metadata.
  serialize::InputArchive archive;
  archive.load_from(fixtures() + "/nested.pt");
  EXPECT_EQ(archive.keys(),
            (std::vector<std::string>{"model.w", "epoch", "lr", "flags.0", "flags.2", "pair.0",
                                      "pair.1", "big", "neg"}));
  EXPECT_EQ(archive.read_metadata("name").value(), "run-1");
  int64_t epoch = 0;
  archive.read("epoch", epoch);
  EXPECT_EQ(epoch, 3);
  serialize::InputArchive model;
  archive.read("model", model);
  Tensor w;
  model.read("w", w);
  EXPECT_TRUE(w.equal(value(4, kFloat)));
}

TEST(TorchFile, ModuleStateDictsAndBareTensors) {
  NABLA_REQUIRE_TORCH_PYTHON();
  // A BatchNorm's state_dict carries _metadata through BUILD; the keys match nabla's.
  nn::BatchNorm1d bn(3);
  bn->running_mean.fill_(5.0);
  nabla::load(bn, fixtures() + "/batchnorm.pt");
  EXPECT_EQ(values(bn->running_mean), (std::vector<double>(3, 0.0)));
  EXPECT_EQ(values(bn->weight), (std::vector<double>(3, 1.0)));
  Tensor t;
  nabla::load(t, fixtures() + "/tensor.pt");
  EXPECT_TRUE(t.equal(value(12, kFloat).reshape({3, 4})));
  std::vector<Tensor> list;
  nabla::load(list, fixtures() + "/list.pt");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(list[1].equal(list[0][0]));
}

TEST(TorchFile, DeflatedAndBigEndianArchives) {
  NABLA_REQUIRE_TORCH_PYTHON();
  const IValue deflated = load_fixture("deflated.pt");
  const auto& d = deflated.toGenericDict();
  EXPECT_TRUE(d.at("t").toTensor().equal(value(12, kFloat).reshape({3, 4}).t()));
  EXPECT_TRUE(
      load_fixture("bigendian.pt").toGenericDict().at("w").toTensor().equal(value(5, kFloat)));
}

TEST(TorchFile, RefusesLegacyTorchScriptAndCode) {
  NABLA_REQUIRE_TORCH_PYTHON();
  nn::Linear linear(2, 2);
  expect_error([&] { load_fixture("legacy.pt"); }, {"legacy", "before 1.6"});
  expect_error([&] { nabla::load(linear, fixtures() + "/legacy.pt"); },
               {"legacy.pt", "legacy torch.save format"});
  expect_error([&] { nabla::load(linear, fixtures() + "/torchscript.pt"); },
               {"TorchScript", "torch.jit.save"});
  expect_error([&] { load_fixture("evil.pt"); }, {"__main__.Evil", "not allowed"});
}

// ---- nabla writes, Python reads -----------------------------------------------------------

IValue written_by_nabla() {
  GenericDict d;
  for (const auto& [key, dtype] :
       std::vector<std::pair<std::string, ScalarType>>{{"f32", kFloat},
                                                       {"f64", kDouble},
                                                       {"f16", kHalf},
                                                       {"bf16", kBFloat16},
                                                       {"i64", kLong},
                                                       {"i32", kInt},
                                                       {"i16", kShort},
                                                       {"i8", kChar},
                                                       {"u8", kByte},
                                                       {"b", kBool}})
    d.insert_or_assign(key, value(6, dtype).reshape({2, 3}));
  const Tensor base = value(12, kFloat).reshape({3, 4});
  d.insert_or_assign("base", base);
  d.insert_or_assign("t", base.t());
  d.insert_or_assign("col", base.select(1, 1));
  d.insert_or_assign("tail", base.view({-1}).slice(0, 5, 9));
  d.insert_or_assign("grad", value(3, kFloat).requires_grad_(true));
  d.insert_or_assign("empty", zeros({0, 3}));
  d.insert_or_assign("scalar", scalar_tensor(7, TensorOptions(kLong)));
  d.insert_or_assign("n", -70000);
  d.insert_or_assign("big", int64_t{1} << 40);
  d.insert_or_assign("s", "text");
  d.insert_or_assign("list", GenericList{true, IValue(), false});
  d.insert_or_assign("tuple", ivalue::Tuple::create({1, 2}));
  return IValue(d);
}

TEST(TorchFile, PythonReadsWhatNablaWrites) {
  NABLA_REQUIRE_TORCH_PYTHON();
  const std::string path = temp_path("nabla_written.pt");
  const auto bytes = pickle_save(written_by_nabla());
  write_bytes(path, std::string(bytes.begin(), bytes.end()));
  const std::string cmd =
      torch_python() + " " + NABLA_TEST_SOURCE_DIR + "/io/torch_fixtures.py check " + path;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(TorchFile, RoundTripKeepsSharingAndGeometry) {
  const IValue back = pickle_load(pickle_save(written_by_nabla()));
  const auto& d = back.toGenericDict();
  const Tensor base = d.at("base").toTensor();
  EXPECT_TRUE(d.at("t").toTensor().is_alias_of(base));
  EXPECT_EQ(d.at("t").toTensor().strides().vec(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(d.at("tail").toTensor().storage_offset(), 5);
  EXPECT_TRUE(d.at("tail").toTensor().equal(base.view({-1}).slice(0, 5, 9)));
  EXPECT_FALSE(d.at("f32").toTensor().is_alias_of(base));
  for (const char* k : {"f16", "bf16", "u8", "b", "i32"}) {
    const Tensor& t = d.at(k).toTensor();
    EXPECT_EQ(values(t), values(value(6, t.scalar_type()))) << k;
  }
  EXPECT_TRUE(d.at("grad").toTensor().requires_grad());
  EXPECT_EQ(d.at("s").toStringRef(), "text");
  EXPECT_EQ(d.at("big").toInt(), int64_t{1} << 40);
  EXPECT_EQ(d.at("n").toInt(), -70000);
  EXPECT_EQ(d.at("tuple").toIntVector(), (std::vector<int64_t>{1, 2}));
  // Doubles survive too (Python reads them without weights_only in torch 1.13).
  EXPECT_EQ(pickle_load(pickle_save(IValue(0.1))).toDouble(), 0.1);
}

TEST(TorchFile, ModuleSaveLoadAndTheStrictReport) {
  const std::string path = temp_path("module.pt");
  nn::Sequential a(nn::Linear(4, 3), nn::BatchNorm1d(3), nn::Linear(3, 2));
  nn::Sequential b(nn::Linear(4, 3), nn::BatchNorm1d(3), nn::Linear(3, 2));
  nabla::save(a, path);
  ASSERT_EQ(serialize::detail::sniff_file(read_text(path)), serialize::detail::FileKind::TorchZip);
  nabla::load(b, path);
  for (const auto& p : a->named_parameters())
    EXPECT_TRUE(p.value().equal(b->named_parameters()[p.key()])) << p.key();
  // Every difference at once: two missing, one unexpected, one shape mismatch.
  nn::Sequential c(nn::Linear(4, 5), nn::BatchNorm1d(3));
  nabla::serialize::OutputArchive partial;
  partial.write("0.weight", a->named_parameters()["0.weight"]);
  partial.write("extra", ones({1}));
  partial.save_to(path);
  expect_error([&] { nabla::load(c, path); },
               {"does not match", "missing from the file (6): 0.bias, 1.weight",
                "unexpected in the file (1): extra",
                "0.weight: [3, 4] Float in the file, [5, 4] Float in the module"});
  const Tensor before = c->named_parameters()["0.weight"].clone();
  const auto report = nabla::load(c, path, /*strict=*/false);
  EXPECT_EQ(report.missing_keys.size(), 6u);
  EXPECT_EQ(report.unexpected_keys, (std::vector<std::string>{"extra"}));
  ASSERT_EQ(report.mismatched_keys.size(), 1u);
  EXPECT_EQ(report.mismatched_keys[0].key, "0.weight");
  EXPECT_TRUE(c->named_parameters()["0.weight"].equal(before)) << "a mismatch is not loaded";
}

// ---- malformed and hostile files ----------------------------------------------------------

// A torch.save-shaped archive around a hand-written pickle.
std::vector<char> archive_with(const std::string& pkl, const std::string& storage = "") {
  std::vector<std::pair<std::string, std::string_view>> entries = {{"a/data.pkl", pkl},
                                                                   {"a/version", "3\n"}};
  if (!storage.empty()) entries.emplace_back("a/data/0", storage);
  const std::string zip = serialize::detail::encode_zip(entries, 64, "test");
  return {zip.begin(), zip.end()};
}

// ('storage', torch.<type>, '0', 'cpu', numel) BINPERSID
std::string storage_pid(int numel, const std::string& type = "FloatStorage") {
  return "(X\x07\0\0\0storagectorch\n"s + type +
         "\nX\x01\0\0\0"
         "0X\x03\0\0\0cpuK"s +
         char(numel) + "tQ";
}

template <class F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(TorchFile, HostilePicklesAreClearErrors) {
  const std::string f4(16, '\0');  // a FloatStorage of 4 elements
  const std::string rebuild = "ctorch._utils\n_rebuild_tensor_v2\n";
  auto tensor_pkl = [&](const std::string& geometry) {
    return "\x80\x02" + rebuild + "(" + storage_pid(4) + geometry + "\x89}tR.";
  };
  // Sanity: a well-formed one reads.
  EXPECT_EQ(shape(pickle_load(archive_with(tensor_pkl("K\x01K\x03\x85K\x01\x85"), f4)).toTensor()),
            (std::vector<int64_t>{3}));
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"\x80\x02"
       "cos\nsystem\n(X\x02\0\0\0lstR."s,
       {"'os.system'", "not allowed"}},
      {"\x80\x02"
       "cbuiltins\neval\n."s,
       {"'builtins.eval'", "not allowed"}},
      {"\x80\x02"
       "ctorch\nFloatStorage\n)R."s,
       {"only valid inside a persistent id"}},
      {"\x80\x02]q\0h\0"
       "a."s,
       {"placed inside itself"}},
      {"\x80\x02](]q\0"
       "eh\0K\x01"
       "a."s,
       {"changed after being placed"}},
      {"\x80\x02h\x05."s, {"memo entry 5"}},
      {"\x80\x02"
       "a."s,
       {"stack is empty"}},
      {"\x80\x02"
       "e."s,
       {"no MARK"}},
      {"\x80\x02\x8a\x09"
       "123456789."s,
       {"9 bytes"}},
      {"\x80\x02X\xff\xff\xff\x7f"
       "abc."s,
       {"truncated"}},
      {"\x80\x02K\x01"s, {"truncated"}},
      {"\x80\x09."s, {"protocol 9"}},
      {"\x80\x02I1\n."s, {"opcode 0x49 ('I')", "not supported"}},
      {"\x80\x02K\x01K\x02."s, {"left on the stack"}},
      {"\x80\x02}]K\x01s."s, {"dict key is a List"}},
      {tensor_pkl("K\x02K\x03\x85K\x01\x85"), {"reaches element 4 of a storage of 4"}},
      {tensor_pkl("K\x00K\x02\x85\x8a\x01\xff\x85"s), {"negative size or stride"}},
      {tensor_pkl("K\x00K\x02K\x02\x86K\x01\x85"s), {"2 sizes and 1 strides"}},
      {"\x80\x02" + rebuild + "(K\x01K\x00))\x89}tR."s, {"not (storage, offset, size, stride"}},
      {"\x80\x02" + rebuild + "(" + storage_pid(4) + "K\x00K\x01\x85K\x01\x85\x89}(K\x01K\x02utR."s,
       {"backward hooks"}},
      {"\x80\x02" + storage_pid(9) + ".", {"should hold 9 FloatStorage elements"}},
      {"\x80\x02" + storage_pid(2, "BoolStorage") + ".", {"BoolStorage", "holds the byte 2"}},
      {"\x80\x02" + storage_pid(2, "ComplexFloatStorage") + ".",
       {"ComplexFloatStorage", "not allowed"}},
      {"."s, {"stack is empty"}},
  };
  for (const auto& [pkl, fragments] : cases) {
    const std::string storage =
        pkl.find("BoolStorage") != std::string::npos ? "\x01\x02\x00\x00"s : f4;
    const std::vector<char> archive = archive_with(pkl, storage);  // clang < 16: no binding capture
    const std::string msg = error_of([&] { pickle_load(archive); });
    EXPECT_NE(msg.find("pickle_load"), std::string::npos) << msg;
    for (const auto& f : fragments)
      EXPECT_NE(msg.find(f), std::string::npos) << "lacks '" << f << "': " << msg;
  }
  // Nesting deeper than the bound: 100 lists, each placed in the next.
  std::string deep = "\x80\x02]";
  for (int i = 0; i < 100; ++i) deep += "]";
  for (int i = 0; i < 100; ++i) deep += "a";
  expect_error([&] { pickle_load(archive_with(deep + ".")); }, {"nest deeper than 64"});
  // Tuples around a global, nested past the bound.
  std::string nested =
      "\x80\x02"
      "ctorch\nFloatStorage\n"s;
  for (int i = 0; i < 100; ++i) nested += "\x85";
  expect_error([&] { pickle_load(archive_with(nested + ".")); }, {"tuples nest deeper than 64"});
  // A call with a long argument tuple is refused before its arguments are copied.
  std::string many = "\x80\x02" + rebuild + "(";
  for (int i = 0; i < 1000; ++i) many += "K\x01";
  expect_error([&] { pickle_load(archive_with(many + "tR.")); }, {"called with 1000 arguments"});
  expect_error([&] { pickle_load({'P', 'K', 3, 4}); }, {"pickle_load", "zip"});
  const auto no_pkl = serialize::detail::encode_zip({{"a/other", "x"}}, 64, "test");
  expect_error([&] { pickle_load({no_pkl.begin(), no_pkl.end()}); }, {"without a/data.pkl"});
}

// A dict of 200,000 int keys (about 1 MB of pickle) reads in linear time: keys of every
// kind are hashed.
TEST(TorchFile, LargeDictsReadInLinearTime) {
  std::string pkl = "\x80\x02}("s;
  for (uint32_t i = 0; i < 200000; ++i) {
    pkl += 'J';
    for (int b = 0; b < 4; ++b) pkl += static_cast<char>((i >> (8 * b)) & 0xff);
    pkl += "N";
  }
  pkl += "u.";
  const auto start = std::chrono::steady_clock::now();
  const IValue v = pickle_load(archive_with(pkl));
  EXPECT_EQ(v.toGenericDict().size(), 200000u);
  EXPECT_TRUE(v.toGenericDict().at(199999).isNone());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60)) << "quadratic?";
}

// Every truncation and many single-byte changes of a real file: a value or a nabla::Error,
// never a crash (the CRC catches most changes; those in headers reach the parsers).
TEST(TorchFile, TruncationsAndFlipsNeverCrash) {
  const auto good = pickle_save(written_by_nabla());
  std::mt19937 rng(7);
  int errors = 0;
  auto attempt = [&](const std::vector<char>& bytes) {
    try {
      pickle_load(bytes);
    } catch (const Error&) {
      ++errors;
    }
  };
  for (size_t n = 0; n < good.size(); n += 7) attempt({good.begin(), good.begin() + n});
  for (int i = 0; i < 3000; ++i) {
    auto bytes = good;
    bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
    attempt(bytes);
  }
  EXPECT_GT(errors, 1000);
}

}  // namespace
}  // namespace nabla::testing
