// .npy and .npz (a zip of .npy files) reading and writing.
#include "nabla/serialize/numpy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "nabla/core/detail/atomic_file.h"
#include "nabla/ops/factories.h"
#include "nabla/serialize/detail/zip.h"
#include "safetensors.h"
#include "serialize/format_utils.h"

namespace nabla {

namespace serialize::detail {

namespace {

// NumPy's array-protocol type strings (<: little-endian, |: byte-sized); NumPy has no
// bfloat16. The first row of a dtype is the one written; "<u1" and "<i1" are read too.
constexpr DtypeCode kDescrs[] = {{kFloat, "<f4"}, {kDouble, "<f8"}, {kLong, "<i8"}, {kInt, "<i4"},
                                 {kShort, "<i2"}, {kChar, "|i1"},   {kByte, "|u1"}, {kBool, "|b1"},
                                 {kHalf, "<f2"},  {kByte, "<u1"},   {kChar, "<i1"}};

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
  Tensor t = tensor.detach().cpu().contiguous();
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
  const size_t header_len = get_le(b, 8, static_cast<int>(len_bytes));
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
  std::vector<std::string> files;  // the .npy encodings, alive while the zip is written
  std::vector<std::pair<std::string, std::string_view>> entries;
  files.reserve(arrays.size());
  for (const auto& [name, tensor] : arrays) {
    NABLA_CHECK(!name.empty(), "save_npz: an array name is empty");
    files.push_back(encode_npy(tensor));
  }
  for (size_t i = 0; i < arrays.size(); ++i)
    entries.emplace_back(arrays[i].first + ".npy", files[i]);
  return encode_zip(entries, /*alignment=*/0, "save_npz");
}

OrderedDict<std::string, Tensor> decode_npz(const std::string& b, const std::string& source) {
  ZipArchive zip(b, source, "load_npz");
  OrderedDict<std::string, Tensor> out("Array");
  for (const std::string& entry : zip.names()) {
    std::string name = entry;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    // save_npz refuses an empty name, so a file with one cannot be written back.
    NABLA_CHECK(!name.empty(), "load_npz: ", source, ": an entry has an empty name");
    NABLA_CHECK(!out.contains(name), "load_npz: ", source, ": duplicate entry ", name);
    out.insert(name, decode_npy(std::string(zip.read(entry)), source + " entry '" + name + "'"));
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
