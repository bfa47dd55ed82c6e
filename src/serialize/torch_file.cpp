// torch.save files (torch_file.h): the ZIP layout around data.pkl and the storages.
#include "serialize/torch_file.h"

#include <cctype>
#include <cstring>

#include "nabla/ops/factories.h"
#include "nabla/serialize/detail/mapped_file.h"
#include "nabla/serialize/detail/zip.h"
#include "serialize/format_utils.h"
#include "serialize/pickle.h"

namespace nabla::serialize::detail {

FileKind sniff_file(std::string_view head) {
  if (head.substr(0, 4) == "PK\x03\x04" || head.substr(0, 4) == "PK\x05\x06")
    return FileKind::TorchZip;
  // The legacy format starts with a pickle of torch's magic number 0x1950a86a20f9469cfc6c,
  // or (before PyTorch 0.4) is a tar archive.
  static constexpr std::string_view kMagic = "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";
  if (head.size() >= 2 && uint8_t(head[0]) == 0x80 && uint8_t(head[1]) <= 5 &&
      head.substr(0, 32).find(kMagic) != std::string_view::npos)
    return FileKind::LegacyTorch;
  if (head.size() >= 262 && head.substr(257, 5) == "ustar") return FileKind::LegacyTorch;
  return FileKind::Other;
}

bool has_torch_extension(const std::string& path) {
  auto ends_with = [&](std::string_view ext) {
    if (path.size() < ext.size()) return false;
    for (size_t i = 0; i < ext.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i])
        return false;
    return true;
  };
  return ends_with(".pt") || ends_with(".pth");
}

std::string encode_torch_file(const IValue& value) {
  std::vector<PickledStorage> storages;
  const std::string pkl = pickle(value, storages);
  std::vector<std::pair<std::string, std::string_view>> entries;
  entries.emplace_back("archive/data.pkl", pkl);
  entries.emplace_back("archive/byteorder", "little");
  for (const auto& s : storages)
    entries.emplace_back("archive/data/" + s.key,
                         std::string_view(static_cast<const char*>(s.storage->data()),
                                          s.numel * elementSize(s.dtype)));
  entries.emplace_back("archive/version", "3\n");
  // 64-byte aligned data, as PyTorch writes: storages can be used where they lie.
  return encode_zip(entries, 64, "save");
}

namespace {

// One storage's elements from the file's bytes: borrowed where they can be used as they
// are, else converted (big-endian swapped) into new memory.
Tensor storage_tensor(std::string_view data, const StorageRecord& r, bool big_endian,
                      const std::shared_ptr<const void>& keep_alive, std::string_view file,
                      const std::function<void(const std::string&)>& fail) {
  const StorageType& type = *r.type;
  const size_t n = static_cast<size_t>(r.numel);
  if (n > data.size() / type.file_element_size)
    fail("storage '" + r.key + "' should hold " + std::to_string(n) + " " + type.name +
         " elements, but its entry has " + std::to_string(data.size()) + " bytes");
  if (type.dtype == kBool)
    for (size_t i = 0; i < n; ++i)
      if (uint8_t(data[i]) > 1)
        fail("storage '" + r.key + "' (BoolStorage) holds the byte " +
             std::to_string(uint8_t(data[i])));
  const size_t size = elementSize(type.dtype);
  const bool in_file = data.data() >= file.data() && data.data() < file.data() + file.size();
  if (keep_alive && in_file && size == type.file_element_size && (size == 1 || !big_endian) &&
      reinterpret_cast<uintptr_t>(data.data()) % size == 0) {
    auto storage = std::make_shared<StorageImpl>(const_cast<char*>(data.data()), n * size,
                                                 Device(kCPU), [keep_alive](void*) {});
    return Tensor(std::make_shared<TensorImpl>(
        std::move(storage), type.dtype, std::vector<int64_t>{r.numel}, std::vector<int64_t>{1}, 0));
  }
  Tensor out = empty({r.numel}, TensorOptions(type.dtype));
  auto* dst = static_cast<char*>(out.data_ptr());
  const size_t width = type.file_element_size;
  if (width == size && (!big_endian || size == 1)) {
    std::memcpy(dst, data.data(), n * size);
    return out;
  }
  // Element by element (nabla's memory is little-endian, as every CPU it builds for).
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = get_le(data, i * width, static_cast<int>(width));
    if (big_endian) {
      uint64_t swapped = 0;
      for (size_t k = 0; k < width; ++k) swapped = (swapped << 8) | ((bits >> (8 * k)) & 0xff);
      bits = swapped;
    }
    std::memcpy(dst + i * size, &bits, size);
  }
  return out;
}

}  // namespace

IValue decode_torch_file(std::string_view bytes, const std::string& source, const char* op,
                         std::shared_ptr<const void> keep_alive) {
  ZipArchive zip(bytes, source, op);
  auto fail = [&](const std::string& what) { NABLA_CHECK(false, op, ": ", source, ": ", what); };
  if (zip.names().empty()) fail("the zip archive is empty (not a torch.save file)");
  const std::string& first = zip.names().front();
  const std::string prefix = first.substr(0, first.find('/') + 1);
  if (prefix.empty() || !zip.contains(prefix + "data.pkl")) {
    if (zip.contains(prefix + "model.json") || zip.contains(prefix + "constants.pkl"))
      fail("a TorchScript archive (torch.jit.save), not a torch.save file");
    fail("a zip archive without " + prefix + "data.pkl (not a torch.save file)");
  }
  if (zip.contains(prefix + "constants.pkl"))
    fail(
        "a TorchScript archive (torch.jit.save): nabla reads torch.save files; in Python, "
        "torch.save(model.state_dict(), path) writes one");
  for (const char* name : {"version", ".data/version"}) {
    if (!zip.contains(prefix + name)) continue;
    const std::string_view v = zip.read(prefix + name);
    const std::string digits(v.substr(0, v.find_first_not_of("0123456789")));
    if (digits.empty() || digits.size() > 3 || std::stoi(digits) > 3)
      fail("format version '" + std::string(v.substr(0, 8)) + "' (this reader knows 1-3)");
  }
  bool big_endian = false;
  if (zip.contains(prefix + "byteorder")) {
    const std::string_view order = zip.read(prefix + "byteorder");
    if (order != "little" && order != "big")
      fail("byteorder '" + std::string(order.substr(0, 16)) + "' (expected little or big)");
    big_endian = order == "big";
  }
  auto load_storage = [&](const StorageRecord& r) {
    const std::string name = prefix + "data/" + r.key;
    if (!zip.contains(name)) fail("storage '" + r.key + "' has no entry " + name);
    return storage_tensor(zip.read(name), r, big_endian, keep_alive, bytes, fail);
  };
  return unpickle(zip.read(prefix + "data.pkl"), load_storage, source);
}

}  // namespace nabla::serialize::detail
