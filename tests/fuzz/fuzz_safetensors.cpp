// safetensors through both of InputArchive's paths (a file, read at offsets; a stream, read
// whole) and nabla::load of a tensor list. Both paths must agree, and whatever loads must
// save and load back unchanged.
#include <sstream>

#include "fuzz_util.h"
#include "nabla/serialize.h"

using namespace nabla;

namespace {

// Aborts naming the first difference between the archives.
void expect_same(const serialize::InputArchive& a, const serialize::InputArchive& b,
                 const std::string& what) {
  const auto keys = a.keys();
  if (keys != b.keys()) fuzz::fail(what + ": the keys differ");
  for (const auto& k : keys) {
    Tensor ta, tb;
    serialize::InputArchive ca = a, cb = b;
    ca.read(k, ta);
    cb.read(k, tb);
    if (!fuzz::same_tensor(ta, tb)) fuzz::fail(what + ": tensor '" + k + "' differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("safetensors");
  const std::string& path = file.write(data, size);
  const std::string bytes(reinterpret_cast<const char*>(data), size);

  serialize::InputArchive from_file, from_stream;
  const bool file_ok = fuzz::accepts({"load: "}, [&] { from_file.load_from(path); });
  const bool stream_ok = fuzz::accepts({"load: "}, [&] {
    std::istringstream in(bytes);
    from_stream.load_from(in);
  });
  if (file_ok != stream_ok) fuzz::fail("the file and stream paths disagree on accepting");
  if (!file_ok) return 0;
  expect_same(from_file, from_stream, "the file and stream paths");

  // Save what was read and read it back: the same keys and tensors.
  serialize::OutputArchive out;
  for (const auto& k : from_file.keys()) {
    Tensor t;
    serialize::InputArchive view = from_file;
    view.read(k, t);
    fuzz::touch(t);
    out.write(k, t);
  }
  std::stringstream again;
  out.save_to(again);
  serialize::InputArchive reread;
  reread.load_from(again);
  expect_same(from_file, reread, "save after load");

  std::vector<Tensor> list;
  fuzz::accepts({"load: "}, [&] { nabla::load(list, path); });
  for (const auto& t : list) fuzz::touch(t);
  return 0;
}
