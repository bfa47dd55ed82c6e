// IDX (MNIST) files, raw or gzip (read_idx tells them apart by their bytes).
#include "fuzz_util.h"
#include "nabla/data/mnist.h"

using namespace nabla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("idx");
  const std::string& path = file.write(data, size);
  Tensor t;
  if (!fuzz::accepts({"read_idx: "}, [&] { t = data::read_idx(path); })) return 0;
  if (t.scalar_type() != kByte || t.dim() < 1 || t.dim() > 4) fuzz::fail("bad IDX tensor");
  fuzz::touch(t);
  return 0;
}
