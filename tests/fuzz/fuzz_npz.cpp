// .npz (zip of .npy, stored or deflated): whatever decodes must encode and decode back to
// the same arrays under the same names.
#include "fuzz_util.h"
#include "nabla/serialize/numpy.h"

using namespace nabla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  OrderedDict<std::string, Tensor> arrays("Array");
  if (!fuzz::accepts({"load_npz: ", "load_npy: "},
                     [&] { arrays = serialize::detail::decode_npz(bytes, "input"); }))
    return 0;
  std::vector<std::pair<std::string, Tensor>> list;
  for (const auto& item : arrays) {
    fuzz::touch(item.value());
    list.emplace_back(item.key(), item.value());
  }
  const auto back =
      serialize::detail::decode_npz(serialize::detail::encode_npz(list), "re-encoded");
  if (back.size() != arrays.size()) fuzz::fail("encode after decode changed the array count");
  for (const auto& [name, t] : list) {
    const Tensor* b = back.find(name);
    if (b == nullptr || !fuzz::same_tensor(t, *b))
      fuzz::fail("encode after decode changed array '" + name + "'");
  }
  return 0;
}
