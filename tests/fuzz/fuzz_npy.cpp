// .npy: whatever decodes must encode and decode back to the same tensor.
#include "fuzz_util.h"
#include "nabla/serialize/numpy.h"

using namespace nabla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Tensor t;
  if (!fuzz::accepts({"load_npy: "}, [&] { t = serialize::detail::decode_npy(bytes, "input"); }))
    return 0;
  fuzz::touch(t);
  const Tensor back = serialize::detail::decode_npy(serialize::detail::encode_npy(t), "re-encoded");
  if (!fuzz::same_tensor(t, back)) fuzz::fail("encode after decode changed the tensor");
  return 0;
}
