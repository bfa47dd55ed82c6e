// What fuzzing the readers found (docs/reliability.md, "Fuzzing"), checked here too so a
// regression fails the ordinary tests with a message, not only the fuzz replay.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include <nabla/nabla.h>

#include "test_util.h"

using nabla::Tensor;
using nabla::testing::expect_error;

namespace {

// A version 1.0 .npy file: the header dict, padded, then `data`.
std::string npy(const std::string& dict, const std::string& data) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

}  // namespace

TEST(FuzzFindings, NpyShapeMustBeATuple) {
  // Was read as shape [2]: the parser skipped the first character.
  const std::string b =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': 12, }", std::string(8, '\0'));
  expect_error([&] { nabla::serialize::detail::decode_npy(b, "x"); },
               {"load_npy", "shape 12", "not a tuple"});
}

TEST(FuzzFindings, NpyFortranBoolBytesChecked) {
  const std::string b = npy("{'descr': '|b1', 'fortran_order': True, 'shape': (1, 3), }",
                            std::string("\x01\xfe\x00", 3));
  expect_error([&] { nabla::serialize::detail::decode_npy(b, "x"); },
               {"load_npy", "bool array holds the byte 254"});
}

TEST(FuzzFindings, EmptyShapesWhoseStridesOverflowAreRefused) {
  const int64_t big = int64_t{1} << 40;
  expect_error([&] { nabla::empty({0, big, big}); }, {"empty", "overflows int64"});
  const std::string b =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1125899906842623, "
          "1125899906842623), }",
          "");
  expect_error([&] { nabla::serialize::detail::decode_npy(b, "x"); }, {"load_npy", "too large"});
  const std::string json =
      R"({"a":{"dtype":"F32","shape":[0,4611686018427387904,4611686018427387904],)"
      R"("data_offsets":[0,0]}})";
  std::string st(8, '\0');
  st[0] = static_cast<char>(json.size());
  std::istringstream in(st + json);
  nabla::serialize::InputArchive archive;
  expect_error([&] { archive.load_from(in); }, {"load", "element count overflows"});
}

TEST(FuzzFindings, NpzEntryWithEmptyNameRefused) {
  std::string b = nabla::serialize::detail::encode_npz({{"a", nabla::ones({2})}});
  const size_t central = b.find("PK\x01\x02");
  ASSERT_NE(central, std::string::npos);
  b[central + 28] = 0;  // the central directory's name length
  expect_error([&] { nabla::serialize::detail::decode_npz(b, "x"); }, {"load_npz", "empty name"});
}

TEST(FuzzFindings, IntegerReadOfAFloatValueRefused) {
  nabla::serialize::OutputArchive out;
  out.write("step", 1e300);
  std::stringstream bytes;
  out.save_to(bytes);
  nabla::serialize::InputArchive in;
  in.load_from(bytes);
  int64_t step = 0;
  expect_error([&] { in.read("step", step); }, {"load", "'step'", "expected an integer"});
}

TEST(FuzzFindings, Float16CloneKeepsNaNPayloads) {
  // A saved copy of a loaded file must be the file: clone went through double before.
  for (auto dtype : {nabla::kHalf, nabla::kBFloat16}) {
    Tensor t = nabla::empty({2}, dtype);
    const uint16_t bits[2] = {0xffff, 0x7c01};
    std::memcpy(t.data_ptr(), bits, sizeof bits);
    uint16_t got[2];
    std::memcpy(got, t.clone().data_ptr(), sizeof got);
    EXPECT_EQ(got[0], 0xffff) << dtype;
    EXPECT_EQ(got[1], 0x7c01) << dtype;
  }
}
