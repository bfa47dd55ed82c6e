// torch.save files (the restricted pickle reader inside a ZIP archive): whatever decodes
// must encode and decode back to the same value, tensors byte for byte.
#include <sstream>

#include "fuzz_util.h"
#include "nabla/serialize/pickle.h"

using namespace nabla;

namespace {
// Tensors in the order a printout of the value lists them.
void tensors_of(const IValue& v, std::vector<Tensor>& out) {
  if (v.isTensor()) out.push_back(v.toTensor());
  if (v.isList())
    for (const auto& e : v.toList()) tensors_of(e, out);
  if (v.isTuple())
    for (const auto& e : v.toTuple()->elements()) tensors_of(e, out);
  if (v.isGenericDict())
    for (const auto& e : v.toGenericDict()) tensors_of(e.value(), out);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<char> bytes(data, data + size);
  IValue value;
  if (!fuzz::accepts({"pickle_load: "}, [&] { value = pickle_load(bytes); })) return 0;
  std::vector<Tensor> tensors, back_tensors;
  tensors_of(value, tensors);
  for (const auto& t : tensors) fuzz::touch(t);
  const IValue back = pickle_load(pickle_save(value));
  std::ostringstream a, b;
  a << value;
  b << back;
  if (a.str() != b.str()) fuzz::fail("encode after decode changed the value: " + a.str());
  tensors_of(back, back_tensors);
  for (size_t i = 0; i < tensors.size(); ++i)
    if (!fuzz::same_tensor(tensors[i], back_tensors[i]))
      fuzz::fail("encode after decode changed tensor " + std::to_string(i));
  return 0;
}
