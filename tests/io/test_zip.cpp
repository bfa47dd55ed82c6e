// The ZIP container (include/nabla/serialize/detail/zip.h) under .npz, PyTorch's .pt and PNNX's
// weights: aligned stored entries, archives written by Python's zipfile (deflated, ZIP64), and the
// malformed archives a reader must refuse with a clear error.
#include <cstdlib>

#include "nabla/serialize/detail/zip.h"
#include "test_util.h"

namespace nabla::testing {
namespace {
using serialize::detail::encode_zip;
using serialize::detail::ZipArchive;

std::string make_archive(size_t alignment) {
  return encode_zip(
      {{"a/data.pkl", "pickle bytes"}, {"a/data/0", std::string(1000, 'x')}, {"a/version", "3\n"}},
      alignment, "test");
}

TEST(Zip, AlignedStoredEntriesRoundTrip) {
  for (size_t alignment : {0u, 64u}) {
    const std::string bytes = make_archive(alignment);
    ZipArchive zip(bytes, "memory", "test");
    EXPECT_EQ(zip.names(), (std::vector<std::string>{"a/data.pkl", "a/data/0", "a/version"}));
    EXPECT_EQ(zip.read("a/data.pkl"), "pickle bytes");
    EXPECT_EQ(zip.read("a/version"), "3\n");
    const std::string_view big = zip.read("a/data/0");
    EXPECT_EQ(big, std::string(1000, 'x'));
    // A stored entry is read in place; aligned, it starts at a multiple of the alignment.
    EXPECT_GE(big.data(), bytes.data());
    EXPECT_LT(big.data(), bytes.data() + bytes.size());
    if (alignment) {
      for (const auto& n : zip.names()) EXPECT_EQ((zip.read(n).data() - bytes.data()) % 64, 0) << n;
    }
    expect_error([&] { zip.read("a/missing"); }, {"test", "memory", "no entry 'a/missing'"});
  }
}

bool have_python() { return std::system("python3 -c 'import zipfile' >/dev/null 2>&1") == 0; }

TEST(Zip, ReadsWhatPythonWritesAndTheOtherWayRound) {
  if (!have_python()) GTEST_SKIP() << "python3 is not installed";
  const std::string ours = temp_path("ours.zip"), theirs = temp_path("theirs.zip");
  { std::ofstream(ours, std::ios::binary) << make_archive(64); }
  // Python checks our archive's CRCs and writes one deflated entry and one forced ZIP64.
  const std::string script =
      "import zipfile,sys\n"
      "z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None\n"
      "assert z.read('a/data/0')==b'x'*1000\n"
      "w=zipfile.ZipFile(sys.argv[2],'w')\n"
      "w.writestr('deflated', b'abc'*5000, compress_type=zipfile.ZIP_DEFLATED)\n"
      "with w.open('big64','w',force_zip64=True) as f: f.write(b'0123456789')\n"
      "w.close()\n";
  const std::string py = temp_path("zip_interop.py");
  std::ofstream(py) << script;
  ASSERT_EQ(std::system(("python3 " + py + " " + ours + " " + theirs).c_str()), 0);
  const std::string bytes = read_text(theirs);
  ZipArchive zip(bytes, theirs, "test");
  std::string abc;
  for (int i = 0; i < 5000; ++i) abc += "abc";
  EXPECT_EQ(zip.read("deflated"), abc);
  EXPECT_EQ(zip.read("big64"), "0123456789");
}

TEST(Zip, MalformedArchivesAreClearErrors) {
  const std::string good = make_archive(64);
  auto refuse = [](std::string bytes, std::initializer_list<std::string> fragments) {
    expect_error(
        [&] {
          ZipArchive zip(bytes, "'f.zip'", "load_x");
          for (const auto& n : zip.names()) zip.read(n);
        },
        fragments);
  };
  refuse("", {"load_x", "'f.zip'", "too short"});
  refuse(std::string(100, 'q'), {"no zip end-of-central-directory record"});
  refuse(good.substr(0, good.size() - 30), {"load_x"});  // cut in the directory
  std::string flipped = good;
  flipped[good.find(std::string(10, 'x'))] = 'y';  // a data byte: the CRC catches it
  refuse(flipped, {"entry a/data/0 fails its CRC check"});
  std::string far = good;
  // The first central header's local-header offset pointed past the end.
  const size_t central = good.find("PK\x01\x02");
  ASSERT_NE(central, std::string::npos);
  far[central + 42] = '\xff';
  far[central + 43] = '\xff';
  refuse(far, {"bad local header for a/data.pkl"});
  std::string twice = encode_zip({{"same", "1"}, {"same", "2"}}, 0, "test");
  refuse(twice, {"duplicate entry same"});
}

}  // namespace
}  // namespace nabla::testing
