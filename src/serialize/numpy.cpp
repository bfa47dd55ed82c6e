// .npy and .npz (a zip of .npy files) reading and writing.
#include "nabla/serialize/numpy.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "core/atomic_file.h"
#include "nabla/ops/factories.h"
#include "safetensors.h"
#include "serialize/format_utils.h"

namespace nabla {

namespace serialize::detail {

namespace {

// NumPy's array-protocol type strings (<: little-endian, |: byte-sized); NumPy has no
// bfloat16. "<u1" is read as uint8 too.
constexpr DtypeCode kDescrs[] = {{kFloat, "<f4"}, {kDouble, "<f8"}, {kLong, "<i8"}, {kInt, "<i4"},
                                 {kByte, "|u1"},  {kBool, "|b1"},   {kHalf, "<f2"}, {kByte, "<u1"}};

uint32_t le(const std::string& b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
  return v;
}

std::string read_all(const std::string& path, const char* who) {
  std::ifstream in(path, std::ios::binary);
  NABLA_CHECK(in.is_open(), who, ": cannot open '", path, "'");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The value after 'key': in a numpy header dict (a Python literal).
std::string dict_value(const std::string& header, const std::string& key,
                       const std::string& source) {
  const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
  size_t pos = std::string::npos;
  for (const auto& q : quoted)
    if ((pos = header.find(q)) != std::string::npos) {
      pos += q.size();
      break;
    }
  NABLA_CHECK(pos != std::string::npos, "load_npy: ", source, ": header has no '", key, "'");
  pos = header.find(':', pos);
  NABLA_CHECK(pos != std::string::npos, "load_npy: ", source, ": malformed header");
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  NABLA_CHECK(pos < header.size(), "load_npy: ", source, ": malformed header");
  size_t end;
  if (header[pos] == '(') {
    end = header.find(')', pos);
    NABLA_CHECK(end != std::string::npos, "load_npy: ", source, ": unterminated shape");
    return header.substr(pos, end - pos + 1);
  }
  if (header[pos] == '\'' || header[pos] == '"') {
    end = header.find(header[pos], pos + 1);
    NABLA_CHECK(end != std::string::npos, "load_npy: ", source, ": unterminated string");
    return header.substr(pos + 1, end - pos - 1);
  }
  end = header.find_first_of(",}", pos);
  NABLA_CHECK(end != std::string::npos, "load_npy: ", source, ": malformed header");
  return header.substr(pos, end - pos);
}

}  // namespace

std::string encode_npy(const Tensor& tensor) {
  NABLA_CHECK(tensor.defined(), "save_npy: the tensor is undefined");
  NABLA_CHECK(tensor.scalar_type() != kBFloat16,
              "save_npy: NumPy has no bfloat16 dtype; convert with .to(kFloat)");
  Tensor t = tensor.detach().contiguous();
  std::string shape = "(";
  for (int64_t d = 0; d < t.dim(); ++d)
    shape += std::to_string(t.size(d)) + (t.dim() == 1 ? "," : (d + 1 < t.dim() ? ", " : ""));
  shape += ")";
  std::string header = std::string("{'descr': '") + code_of(kDescrs, t.scalar_type()) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  put_le(out, static_cast<uint32_t>(header.size()), 2);
  out += header;
  out.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
  return out;
}

Tensor decode_npy(const std::string& b, const std::string& source) {
  NABLA_CHECK(b.size() >= 10 && b.compare(0, 6, "\x93NUMPY") == 0, "load_npy: ", source,
              " is not a .npy file");
  const int major = static_cast<unsigned char>(b[6]);
  NABLA_CHECK(major >= 1 && major <= 3, "load_npy: ", source, ": unsupported format version ",
              major);
  const size_t len_bytes = major == 1 ? 2 : 4;
  NABLA_CHECK(b.size() >= 8 + len_bytes, "load_npy: ", source, " is truncated");
  const size_t header_len = le(b, 8, static_cast<int>(len_bytes));
  const size_t data_start = 8 + len_bytes + header_len;
  NABLA_CHECK(data_start <= b.size(), "load_npy: ", source, ": header length ", header_len,
              " exceeds the file");
  const std::string header = b.substr(8 + len_bytes, header_len);
  const std::string descr = dict_value(header, "descr", source);
  ScalarType dtype;
  NABLA_CHECK(dtype_of_code(kDescrs, descr, dtype), "load_npy: ", source, ": dtype '", descr,
              "' is not supported (<f4 <f8 <i8 <i4 |u1 |b1, little-endian)");
  const std::string order = dict_value(header, "fortran_order", source);
  NABLA_CHECK(order == "False" || order == "True", "load_npy: ", source, ": bad fortran_order '",
              order, "'");
  const std::string shape_text = dict_value(header, "shape", source);
  // A tuple: a bare number would otherwise lose its first digit to the loop below.
  NABLA_CHECK(!shape_text.empty() && shape_text[0] == '(', "load_npy: ", source, ": shape ",
              shape_text, " is not a tuple");
  std::vector<int64_t> shape;
  uint64_t numel = 1, span = 1;  // span: zeros counted as ones, as the strides do
  for (size_t i = 1; i < shape_text.size();) {
    while (i < shape_text.size() &&
           (shape_text[i] == ' ' || shape_text[i] == ',' || shape_text[i] == ')'))
      ++i;
    if (i >= shape_text.size()) break;
    NABLA_CHECK(std::isdigit(static_cast<unsigned char>(shape_text[i])), "load_npy: ", source,
                ": bad shape ", shape_text);
    uint64_t v = 0;
    while (i < shape_text.size() && std::isdigit(static_cast<unsigned char>(shape_text[i]))) {
      NABLA_CHECK(v < (uint64_t{1} << 50), "load_npy: ", source, ": shape entry too large in ",
                  shape_text);
      v = v * 10 + static_cast<uint64_t>(shape_text[i++] - '0');
    }
    NABLA_CHECK(span <= (uint64_t{1} << 50) / std::max<uint64_t>(v, 1), "load_npy: ", source,
                ": shape ", shape_text, " is too large");
    span *= std::max<uint64_t>(v, 1);
    numel *= v;
    shape.push_back(static_cast<int64_t>(v));
  }
  const uint64_t bytes = numel * elementSize(dtype);
  NABLA_CHECK(b.size() - data_start == bytes, "load_npy: ", source, " holds ",
              b.size() - data_start, " data bytes, its shape and dtype need ", bytes);
  // Before either layout's branch: a bool byte other than 0 or 1 is not a bool.
  if (dtype == kBool)
    for (uint64_t i = 0; i < bytes; ++i) {
      const auto byte = static_cast<unsigned char>(b[data_start + i]);
      NABLA_CHECK(byte <= 1, "load_npy: ", source, ": bool array holds the byte ", int(byte));
    }
  if (order == "True") {
    // Fortran order: the reversed shape in C order, then transposed back.
    std::vector<int64_t> reversed(shape.rbegin(), shape.rend());
    Tensor t = empty(reversed, TensorOptions(dtype));
    if (bytes) std::memcpy(t.data_ptr(), b.data() + data_start, bytes);
    std::vector<int64_t> perm;
    for (int64_t d = t.dim() - 1; d >= 0; --d) perm.push_back(d);
    return t.permute(perm).contiguous();
  }
  Tensor t = empty(shape, TensorOptions(dtype));
  if (bytes) std::memcpy(t.data_ptr(), b.data() + data_start, bytes);
  return t;
}

std::string encode_npz(const std::vector<std::pair<std::string, Tensor>>& arrays) {
  std::string out, central;
  uint16_t count = 0;
  for (const auto& [name, tensor] : arrays) {
    NABLA_CHECK(!name.empty(), "save_npz: an array name is empty");
    const std::string file = name + ".npy";
    const std::string data = encode_npy(tensor);
    NABLA_CHECK(data.size() < 0xffffffffu && out.size() < 0xffffffffu,
                "save_npz: archive too large for zip32");
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    const uint32_t offset = static_cast<uint32_t>(out.size());
    // The fields the local and the central header share, from the version needed to
    // extract: stored (method 0), no data descriptor, no time or date.
    auto put_entry_fields = [&](std::string& dst) {
      put_le(dst, 20, 2);  // version needed
      put_le(dst, 0, 2);   // flags
      put_le(dst, 0, 2);   // method
      put_le(dst, 0, 4);   // time, date
      put_le(dst, crc, 4);
      put_le(dst, static_cast<uint32_t>(data.size()), 4);  // compressed
      put_le(dst, static_cast<uint32_t>(data.size()), 4);  // uncompressed
      put_le(dst, static_cast<uint32_t>(file.size()), 2);
      put_le(dst, 0, 2);  // extra field length
    };
    put_le(out, 0x04034b50, 4);  // local file header
    put_entry_fields(out);
    out += file;
    out += data;
    put_le(central, 0x02014b50, 4);  // central directory header
    put_le(central, 20, 2);          // version made by
    put_entry_fields(central);
    put_le(central, 0, 2);  // comment length
    put_le(central, 0, 2);  // disk number
    put_le(central, 0, 2);  // internal attributes
    put_le(central, 0, 4);  // external attributes
    put_le(central, offset, 4);
    central += file;
    ++count;
  }
  const uint32_t central_offset = static_cast<uint32_t>(out.size());
  out += central;
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 2);
  put_le(out, 0, 2);
  put_le(out, count, 2);
  put_le(out, count, 2);
  put_le(out, static_cast<uint32_t>(central.size()), 4);
  put_le(out, central_offset, 4);
  put_le(out, 0, 2);
  return out;
}

OrderedDict<std::string, Tensor> decode_npz(const std::string& b, const std::string& source) {
  auto fail = [&](const std::string& what) {
    NABLA_CHECK(false, "load_npz: ", source, ": ", what);
  };
  // The end-of-central-directory record: within the last 64 KiB + 22 bytes.
  if (b.size() < 22) fail("too short for a zip archive");
  size_t eocd = std::string::npos;
  const size_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (size_t i = b.size() - 22 + 1; i-- > lowest;)
    if (le(b, i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) fail("no zip end-of-central-directory record (not an .npz file?)");
  const uint32_t count = le(b, eocd + 10, 2);
  const uint32_t dir_size = le(b, eocd + 12, 4), dir_offset = le(b, eocd + 16, 4);
  if (uint64_t{dir_offset} + dir_size > eocd) fail("central directory outside the file");
  OrderedDict<std::string, Tensor> out("Array");
  size_t pos = dir_offset;
  for (uint32_t k = 0; k < count; ++k) {
    if (pos + 46 > eocd || le(b, pos, 4) != 0x02014b50) fail("bad central directory entry");
    const uint32_t method = le(b, pos + 10, 2);
    const uint32_t crc = le(b, pos + 16, 4);
    const uint32_t csize = le(b, pos + 20, 4), usize = le(b, pos + 24, 4);
    const uint32_t name_len = le(b, pos + 28, 2), extra_len = le(b, pos + 30, 2),
                   comment_len = le(b, pos + 32, 2);
    const uint32_t local = le(b, pos + 42, 4);
    if (pos + 46 + name_len > eocd) fail("bad central directory entry");
    std::string name = b.substr(pos + 46, name_len);
    pos += 46 + name_len + extra_len + comment_len;
    if (uint64_t{local} + 30 > b.size() || le(b, local, 4) != 0x04034b50)
      fail("bad local header for " + name);
    const uint64_t data_at = uint64_t{local} + 30 + le(b, local + 26, 2) + le(b, local + 28, 2);
    if (data_at + csize > b.size()) fail("entry " + name + " extends past the end of the file");
    std::string data;
    if (method == 0) {
      if (csize != usize) fail("stored entry " + name + " has different sizes");
      data = b.substr(data_at, csize);
    } else if (method == 8) {
      // Deflated: bounded by the declared size, which a real deflate stream cannot exceed
      // by more than 1032:1 — refuse larger claims instead of allocating them.
      if (usize > uint64_t{csize} * 1032 + 1024)
        fail("entry " + name + " claims an impossible size");
      data.resize(usize);
      z_stream z{};
      if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail("zlib init failed");
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(b.data() + data_at));
      z.avail_in = csize;
      z.next_out = reinterpret_cast<Bytef*>(data.data());
      z.avail_out = usize;
      const int rc = inflate(&z, Z_FINISH);
      const uLong produced = z.total_out;
      inflateEnd(&z);
      if (rc != Z_STREAM_END || produced != usize) fail("entry " + name + " is corrupt (deflate)");
    } else {
      fail("entry " + name + " uses zip method " + std::to_string(method) +
           " (only stored and deflate)");
    }
    const uint32_t actual = static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    if (actual != crc) fail("entry " + name + " fails its CRC check");
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    // save_npz refuses an empty name, so a file with one cannot be written back.
    if (name.empty()) fail("an entry has an empty name");
    if (out.contains(name)) fail("duplicate entry " + name);
    out.insert(name, decode_npy(data, source + " entry '" + name + "'"));
  }
  return out;
}

}  // namespace serialize::detail

void save_npy(const std::string& path, const Tensor& tensor) {
  nabla::detail::write_file_atomically(path, serialize::detail::encode_npy(tensor), "save_npy");
}

Tensor load_npy(const std::string& path) {
  return serialize::detail::decode_npy(serialize::detail::read_all(path, "load_npy"),
                                       "'" + path + "'");
}

void save_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays) {
  nabla::detail::write_file_atomically(path, serialize::detail::encode_npz(arrays), "save_npz");
}

OrderedDict<std::string, Tensor> load_npz(const std::string& path) {
  return serialize::detail::decode_npz(serialize::detail::read_all(path, "load_npz"),
                                       "'" + path + "'");
}

}  // namespace nabla
