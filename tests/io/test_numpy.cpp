// .npy / .npz: round trips, Fortran order, compressed npz, corrupt files, and
// interchange with NumPy (Debian's python3-numpy, run as /usr/bin/python3).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <nabla/nabla.h>

#include "test_util.h"

using nabla::Tensor;
using nabla::testing::expect_error;
using nabla::testing::temp_path;

namespace {

bool have_numpy() { return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

int python(const std::string& code) {
  const std::string script = temp_path("script.py");
  std::ofstream(script) << code;
  return std::system(("/usr/bin/python3 " + script).c_str());
}

std::vector<Tensor> samples() {
  return {nabla::arange(12, nabla::kFloat).view({3, 4}) * 0.5,
          nabla::randn({2, 3, 2}, nabla::kDouble),
          nabla::arange(5, nabla::kLong) - 2,
          nabla::arange(6, nabla::kInt).view({2, 3}),
          nabla::arange(4, nabla::kByte),
          nabla::arange(-3, 3, nabla::kChar).view({2, 3}),
          nabla::arange(-300, 300, 100, nabla::kShort),
          nabla::tensor({true, false, true}),
          nabla::scalar_tensor(3.5),
          nabla::zeros({0, 2})};
}

}  // namespace

TEST(Numpy, NpyRoundTripEveryDtype) {
  for (const Tensor& t : samples()) {
    const std::string path = temp_path("x.npy");
    nabla::save_npy(path, t.dim() == 2 && t.size(0) > 0 ? t.t() : t);  // non-contiguous too
    Tensor back = nabla::load_npy(path);
    Tensor want = t.dim() == 2 && t.size(0) > 0 ? t.t() : t;
    EXPECT_EQ(back.scalar_type(), want.scalar_type());
    EXPECT_TRUE(back.equal(want));
  }
}

TEST(Numpy, NpzRoundTripAndErrors) {
  const std::string path = temp_path("x.npz");
  nabla::save_npz(path, {{"w", nabla::ones({2, 2})}, {"steps", nabla::arange(3, nabla::kLong)}});
  auto arrays = nabla::load_npz(path);
  EXPECT_EQ(arrays.keys(), (std::vector<std::string>{"w", "steps"}));
  EXPECT_TRUE(arrays["steps"].equal(nabla::arange(3, nabla::kLong)));
  // Corrupt files: every truncation and random flips give nabla::Error or a clean load.
  std::ifstream in(path, std::ios::binary);
  const std::string valid((std::istreambuf_iterator<char>(in)), {});
  std::mt19937 rng(5);
  int rejected = 0;
  for (size_t n = 0; n + 1 < valid.size(); n += 3) {
    try {
      nabla::serialize::detail::decode_npz(valid.substr(0, n), "fuzz");
    } catch (const nabla::Error&) {
      ++rejected;
    }
  }
  for (int trial = 0; trial < 2000; ++trial) {
    std::string b = valid;
    b[rng() % b.size()] = static_cast<char>(rng());
    try {
      nabla::serialize::detail::decode_npz(b, "fuzz");
    } catch (const nabla::Error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 100);
  const std::string short_header = std::string("\x93NUMPY\x01\x00\x40\x00", 10) + "{'descr': '<f4'";
  expect_error([&] { nabla::serialize::detail::decode_npy(short_header, "x"); }, {"exceeds"});
  std::string npy = nabla::serialize::detail::encode_npy(nabla::ones({3}));
  expect_error([&] { nabla::serialize::detail::decode_npy(npy.substr(0, npy.size() - 1), "x"); },
               {"data bytes"});
  std::string big_endian = npy;
  big_endian.replace(big_endian.find("<f4"), 3, ">f4");
  expect_error([&] { nabla::serialize::detail::decode_npy(big_endian, "x"); },
               {">f4", "not supported"});
  expect_error([] { nabla::load_npy(temp_path("missing.npy")); }, {"cannot open"});
}

TEST(Numpy, InterchangeWithNumpy) {
  if (!have_numpy())
    GTEST_SKIP() << "python3-numpy is not installed (scripts/setup.sh --with-libtorch installs it)";
  // nabla writes, NumPy checks.
  nabla::save_npy(temp_path("a.npy"), nabla::arange(6, nabla::kFloat).view({2, 3}));
  nabla::save_npz(temp_path("b.npz"), {{"x", nabla::arange(4, nabla::kLong)},
                                       {"m", nabla::tensor({true, false})},
                                       {"i8", nabla::arange(-2, 2, nabla::kChar)},
                                       {"i16", nabla::arange(-2, 2, nabla::kShort) * 1000}});
  EXPECT_EQ(
      python("import numpy as np\n"
             "a = np.load('" +
             temp_path("a.npy") +
             "')\n"
             "assert a.dtype == np.float32 and a.shape == (2, 3) and a[1, 2] == 5, a\n"
             "b = np.load('" +
             temp_path("b.npz") +
             "')\n"
             "assert list(b['x']) == [0, 1, 2, 3] and b['x'].dtype == np.int64\n"
             "assert b['m'].dtype == np.bool_ and list(b['m']) == [True, False]\n"
             "assert b['i8'].dtype == np.int8 and list(b['i8']) == [-2, -1, 0, 1]\n"
             "assert b['i16'].dtype == np.int16 and list(b['i16']) == [-2000, -1000, 0, 1000]\n"),
      0);
  // NumPy writes (Fortran order, compressed npz, int32, float64), nabla checks.
  ASSERT_EQ(python("import numpy as np\n"
                   "a = np.asfortranarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4))\n"
                   "np.save('" +
                   temp_path("f.npy") +
                   "', a)\n"
                   "np.savez_compressed('" +
                   temp_path("c.npz") +
                   "', w=np.arange(10, dtype=np.int32), i8=np.array([-128, 127], dtype=np.int8), "
                   "i16=np.array([-32768, 32767], dtype=np.int16), "
                   "z=np.linspace(0, 1, 5).astype(np.float32))\n"),
            0);
  Tensor f = nabla::load_npy(temp_path("f.npy"));
  EXPECT_TRUE(f.equal(nabla::arange(24, nabla::kDouble).view({2, 3, 4})));
  auto c = nabla::load_npz(temp_path("c.npz"));
  EXPECT_TRUE(c["w"].equal(nabla::arange(10, nabla::kInt)));
  EXPECT_TRUE(c["i8"].equal(nabla::tensor({int8_t{-128}, int8_t{127}}, nabla::kChar)));
  EXPECT_TRUE(c["i16"].equal(nabla::tensor({int16_t{-32768}, int16_t{32767}}, nabla::kShort)));
  EXPECT_NEAR(c["z"][4].item<double>(), 1.0, 1e-7);
}
