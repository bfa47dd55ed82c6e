// safetensors encoding and validated decoding.
#include "safetensors.h"
#include "nabla/serialize/detail/mapped_file.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "nabla/ops/factories.h"
#include "serialize/format_utils.h"

namespace nabla::serialize::detail {

namespace {

// Python's safetensors refuses headers above 100 MB; so do we (before reading them).
constexpr uint64_t kMaxHeader = 100'000'000;

constexpr DtypeCode kDtypeCodes[] = {
    {kFloat, "F32"}, {kDouble, "F64"}, {kLong, "I64"},  {kInt, "I32"},  {kShort, "I16"},
    {kChar, "I8"},   {kByte, "U8"},    {kBool, "BOOL"}, {kHalf, "F16"}, {kBFloat16, "BF16"}};

}  // namespace

std::string encode_safetensors(const OrderedDict<std::string, Tensor>& tensors,
                               const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  uint64_t offset = 0;
  std::vector<Tensor> data;
  for (const auto& item : tensors) {
    NABLA_CHECK(item.key() != "__metadata__", "save: '__metadata__' cannot be a tensor name");
    Tensor t = item.value().detach().cpu().contiguous();
    const uint64_t bytes = t.nbytes();
    header[item.key()] = {{"dtype", code_of(kDtypeCodes, t.scalar_type())},
                          {"shape", t.sizes().vec()},
                          {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    data.push_back(std::move(t));
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + json.size() + offset);
  put_le(out, json.size(), 8);
  out += json;
  for (const auto& t : data) {
    // nabla's CPU tensors are little-endian in memory (x86-64, aarch64).
    out.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
  }
  return out;
}

SafetensorsContents decode_safetensors(uint64_t size, const ReadAt& read_at,
                                       const std::string& source, std::string_view mapped,
                                       const std::shared_ptr<const void>& keep_alive) {
  auto fail = [&](const std::string& what) { NABLA_CHECK(false, "load: ", source, ": ", what); };
  if (size < 8)
    fail("file of " + std::to_string(size) + " bytes is too short for a safetensors header");
  unsigned char len_bytes[8];
  read_at(0, 8, len_bytes);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  if (header_len > kMaxHeader || header_len > size - 8)
    fail("header length " + std::to_string(header_len) + " exceeds the file (" +
         std::to_string(size) + " bytes) or the 100 MB limit");
  std::string text(header_len, '\0');
  read_at(8, header_len, text.data());
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    fail(std::string("header is not valid JSON (") + e.what() + ")");
  }
  if (!header.is_object()) fail("header is not a JSON object");

  const uint64_t data_start = 8 + header_len;
  const uint64_t data_size = size - data_start;
  struct Entry {
    std::string name;
    ScalarType dtype;
    std::vector<int64_t> shape;
    uint64_t begin, end;
  };
  std::vector<Entry> entries;
  SafetensorsContents out;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) fail("__metadata__ is not an object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) fail("__metadata__ value for '" + k + "' is not a string");
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!value.is_object()) fail(where + " is not an object");
    if (!value.contains("dtype") || !value["dtype"].is_string())
      fail(where + " has no dtype string");
    if (!value.contains("shape") || !value["shape"].is_array()) fail(where + " has no shape array");
    if (!value.contains("data_offsets") || !value["data_offsets"].is_array() ||
        value["data_offsets"].size() != 2)
      fail(where + " has no [begin, end] data_offsets");
    Entry e;
    e.name = name;
    const std::string code = value["dtype"].get<std::string>();
    if (!dtype_of_code(kDtypeCodes, code, e.dtype))
      fail(where + " has dtype " + code +
           ", which nabla does not support (F32 F64 I64 I32 U8 BOOL)");
    // `span` counts zeros as ones, as the strides do: [0, 2^40, 2^40] holds nothing but
    // still cannot be a tensor.
    uint64_t numel = 1, span = 1;
    constexpr auto kMaxDim = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    for (const auto& d : value["shape"]) {
      if (!d.is_number_unsigned())
        fail(where + " has a shape entry that is not a non-negative integer");
      const uint64_t n = d.get<uint64_t>();
      if (n > kMaxDim || span > kMaxDim / std::max<uint64_t>(n, 1))
        fail(where + " has a shape whose element count overflows");
      span *= std::max<uint64_t>(n, 1);
      numel *= n;
      e.shape.push_back(static_cast<int64_t>(n));
    }
    for (const auto& o : value["data_offsets"])
      if (!o.is_number_unsigned())
        fail(where + " has data_offsets that are not non-negative integers");
    e.begin = value["data_offsets"][0].get<uint64_t>();
    e.end = value["data_offsets"][1].get<uint64_t>();
    if (e.begin > e.end || e.end > data_size)
      fail(where + " has data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
           "] outside the data section of " + std::to_string(data_size) + " bytes");
    const uint64_t elem = elementSize(e.dtype);
    if (numel > std::numeric_limits<uint64_t>::max() / elem || numel * elem != e.end - e.begin)
      fail(where + " holds " + std::to_string(e.end - e.begin) +
           " bytes, but its shape and dtype need " + std::to_string(numel) + " x " +
           std::to_string(elem));
    entries.push_back(std::move(e));
  }
  // The ranges must tile the data section exactly (no overlaps, no gaps).
  std::vector<const Entry*> by_offset;
  for (const auto& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t expected = 0;
  for (const Entry* e : by_offset) {
    if (e->begin != expected)
      fail("tensor '" + e->name + "' starts at byte " + std::to_string(e->begin) +
           " of the data section, expected " + std::to_string(expected) +
           " (overlapping or missing data)");
    expected = e->end;
  }
  if (expected != data_size)
    fail("the data section has " + std::to_string(data_size) + " bytes, the tensors cover " +
         std::to_string(expected));
  // Header valid and every size bounded by the file: allocate and read, in file order.
  std::vector<std::pair<std::string, Tensor>> loaded;
  for (const Entry* e : by_offset) {
    const char* in_place = keep_alive ? mapped.data() + data_start + e->begin : nullptr;
    Tensor t;
    if (in_place && reinterpret_cast<uintptr_t>(in_place) % elementSize(e->dtype) == 0) {
      t = borrowed_tensor(in_place, e->shape, e->dtype, keep_alive);
    } else {
      t = empty(e->shape, TensorOptions(e->dtype));
      if (e->end > e->begin) read_at(data_start + e->begin, e->end - e->begin, t.data_ptr());
    }
    if (e->dtype == kBool) {
      const auto* p = static_cast<const uint8_t*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i)
        if (p[i] > 1)
          fail("tensor '" + e->name + "' is BOOL but holds the byte value " + std::to_string(p[i]));
    }
    loaded.emplace_back(e->name, std::move(t));
  }
  for (auto& [name, t] : loaded) out.tensors.insert(name, std::move(t));
  return out;
}

}  // namespace nabla::serialize::detail
