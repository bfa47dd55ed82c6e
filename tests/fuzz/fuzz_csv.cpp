// Numeric CSV files, with ',' and with ';' as the delimiter.
#include "fuzz_util.h"
#include "nabla/data/mnist.h"

using namespace nabla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("csv");
  const std::string& path = file.write(data, size);
  for (char delimiter : {',', ';'}) {
    Tensor t;
    if (!fuzz::accepts({"read_csv: "}, [&] { t = data::read_csv(path, delimiter); })) continue;
    if (t.scalar_type() != kFloat || t.dim() != 2) fuzz::fail("read_csv gave a bad tensor");
    fuzz::touch(t);
  }
  return 0;
}
