// nabla::pickle_save / nabla::pickle_load (nabla/serialize/pickle.h).
#include "nabla/serialize/pickle.h"

#include "serialize/torch_file.h"

namespace nabla {

std::vector<char> pickle_save(const IValue& ivalue) {
  const std::string bytes = serialize::detail::encode_torch_file(ivalue);
  return {bytes.begin(), bytes.end()};
}

IValue pickle_load(const std::vector<char>& data) {
  using serialize::detail::FileKind;
  const std::string_view bytes(data.data(), data.size());
  NABLA_CHECK(serialize::detail::sniff_file(bytes) != FileKind::LegacyTorch,
              "pickle_load: the data is in the legacy torch.save format of PyTorch before 1.6 "
              "(not a zip archive), which nabla does not read; load it in Python and save it "
              "again with torch.save");
  return serialize::detail::decode_torch_file(bytes, "the data", "pickle_load");
}

}  // namespace nabla
