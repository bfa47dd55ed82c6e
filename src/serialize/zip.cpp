// ZIP reading and writing (zip.h). The format: local file headers with each entry's data,
// then the central directory (one header per entry, with the local header's offset), then
// the end-of-central-directory record; ZIP64 records carry sizes and offsets of 4 GiB and
// more.
#include "nabla/serialize/detail/zip.h"

#include <zlib.h>

#include <vector>

#include "nabla/backend/parallel.h"
#include "nabla/core/error.h"
#include "serialize/format_utils.h"

namespace nabla::serialize::detail {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50,
                   kEndOfDirectory = 0x06054b50, kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
// PyTorch's writer pads with an extra field of this id ("FB"); any id would do.
constexpr uint16_t kPaddingField = 0x4246;

uint32_t crc_of_piece(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes sizes as uInt: feed large entries in pieces.
  for (size_t at = 0; at < data.size();) {
    const size_t n = std::min<size_t>(data.size() - at, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + at), static_cast<uInt>(n));
    at += n;
  }
  return static_cast<uint32_t>(crc);
}

// Large entries (model weights) in 256 KiB chunks on the thread pool, joined with
// crc32_combine: the check costs half of a .pt load when done on one thread.
uint32_t crc_of(std::string_view data) {
  constexpr size_t kChunk = size_t{1} << 18;
  const auto chunks = static_cast<int64_t>((data.size() + kChunk - 1) / kChunk);
  if (chunks < 2) return crc_of_piece(data);
  std::vector<uint32_t> crcs(static_cast<size_t>(chunks));
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c)
      crcs[static_cast<size_t>(c)] =
          crc_of_piece(data.substr(static_cast<size_t>(c) * kChunk, kChunk));
  });
  uLong crc = crcs[0];
  for (int64_t c = 1; c < chunks; ++c) {
    const size_t len = std::min(kChunk, data.size() - static_cast<size_t>(c) * kChunk);
    crc = crc32_combine(crc, crcs[static_cast<size_t>(c)], static_cast<z_off_t>(len));
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

std::string encode_zip(const std::vector<std::pair<std::string, std::string_view>>& entries,
                       size_t alignment, const char* op) {
  std::string out, central;
  for (const auto& [name, data] : entries) {
    NABLA_CHECK(!name.empty() && name.size() < 0xffff, op, ": bad entry name '", name, "'");
    const uint32_t crc = crc_of(data);
    const uint64_t offset = out.size();
    // Padding so the data starts at a multiple of `alignment`: an extra field of at least
    // its own 4-byte header.
    size_t extra = 0;
    if (alignment > 1) {
      const size_t data_at = offset + 30 + name.size();
      extra = (alignment - (data_at + 4) % alignment) % alignment + 4;
    }
    NABLA_CHECK(offset + 30 + name.size() + extra + data.size() < 0xffffffffu, op,
                ": the archive would reach 4 GiB, which this writer does not support");
    // Plain copies for the lambda: clang before 16 cannot capture structured bindings.
    const size_t data_size = data.size(), name_size = name.size();
    auto put_fields = [&](std::string& dst, size_t extra_len) {
      put_le(dst, 20, 2);  // version needed to extract
      put_le(dst, 0, 2);   // flags
      put_le(dst, 0, 2);   // method: stored
      put_le(dst, 0, 4);   // time, date
      put_le(dst, crc, 4);
      put_le(dst, data_size, 4);  // compressed
      put_le(dst, data_size, 4);  // uncompressed
      put_le(dst, name_size, 2);
      put_le(dst, extra_len, 2);
    };
    put_le(out, kLocalHeader, 4);
    put_fields(out, extra);
    out += name;
    if (extra) {
      put_le(out, kPaddingField, 2);
      put_le(out, extra - 4, 2);
      out.append(extra - 4, 'Z');
    }
    out.append(data.data(), data.size());
    put_le(central, kCentralHeader, 4);
    put_le(central, 20, 2);  // version made by
    put_fields(central, 0);
    put_le(central, 0, 2);  // comment length
    put_le(central, 0, 2);  // disk number
    put_le(central, 0, 2);  // internal attributes
    put_le(central, 0, 4);  // external attributes
    put_le(central, offset, 4);
    central += name;
  }
  NABLA_CHECK(entries.size() < 0xffff && out.size() + central.size() < 0xffffffffu, op,
              ": the archive would reach 4 GiB or 65535 entries, which this writer does not "
              "support");
  const uint64_t central_at = out.size();
  out += central;
  put_le(out, kEndOfDirectory, 4);
  put_le(out, 0, 2);  // this disk
  put_le(out, 0, 2);  // the directory's disk
  put_le(out, entries.size(), 2);
  put_le(out, entries.size(), 2);
  put_le(out, central.size(), 4);
  put_le(out, central_at, 4);
  put_le(out, 0, 2);  // comment length
  return out;
}

void ZipArchive::fail(const std::string& what) const {
  throw Error(str(op_, ": ", source_, ": ", what));
}

ZipArchive::ZipArchive(std::string_view bytes, std::string source, const char* op)
    : bytes_(bytes), source_(std::move(source)), op_(op) {
  const std::string_view b = bytes_;
  // The end-of-central-directory record: within the last 64 KiB + 22 bytes.
  if (b.size() < 22) fail("too short for a zip archive");
  uint64_t eocd = b.size();
  const uint64_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (uint64_t i = b.size() - 22 + 1; i-- > lowest;)
    if (get_le(b, i, 4) == kEndOfDirectory) {
      eocd = i;
      break;
    }
  if (eocd == b.size()) fail("no zip end-of-central-directory record (not a zip archive?)");
  uint64_t count = get_le(b, eocd + 10, 2), dir_size = get_le(b, eocd + 12, 4),
           dir_at = get_le(b, eocd + 16, 4);
  uint64_t dir_end = eocd;
  // ZIP64: a locator just before the record points at the ZIP64 end record.
  if (eocd >= 20 && get_le(b, eocd - 20, 4) == kZip64Locator) {
    const uint64_t at = get_le(b, eocd - 20 + 8, 8);
    if (at + 56 > eocd - 20 || get_le(b, at, 4) != kZip64End) fail("bad ZIP64 end record");
    count = get_le(b, at + 32, 8);
    dir_size = get_le(b, at + 40, 8);
    dir_at = get_le(b, at + 48, 8);
    dir_end = at;
  }
  if (dir_at > dir_end || dir_size > dir_end - dir_at) fail("central directory outside the file");
  uint64_t pos = dir_at;
  for (uint64_t k = 0; k < count; ++k) {
    if (pos + 46 > dir_end || get_le(b, pos, 4) != kCentralHeader)
      fail("bad central directory entry");
    Entry e;
    e.method = static_cast<uint16_t>(get_le(b, pos + 10, 2));
    e.crc = static_cast<uint32_t>(get_le(b, pos + 16, 4));
    e.compressed = get_le(b, pos + 20, 4);
    e.size = get_le(b, pos + 24, 4);
    const uint64_t name_len = get_le(b, pos + 28, 2), extra_len = get_le(b, pos + 30, 2),
                   comment_len = get_le(b, pos + 32, 2);
    uint64_t local = get_le(b, pos + 42, 4);
    if (pos + 46 + name_len + extra_len > dir_end) fail("bad central directory entry");
    std::string name(b.substr(pos + 46, name_len));
    // The ZIP64 extra field holds, in order, those of the three that are 0xffffffff.
    for (uint64_t x = pos + 46 + name_len; x + 4 <= pos + 46 + name_len + extra_len;) {
      const uint64_t id = get_le(b, x, 2), len = get_le(b, x + 2, 2);
      if (x + 4 + len > pos + 46 + name_len + extra_len) fail("bad extra field of " + name);
      if (id == 1) {
        uint64_t y = x + 4;
        auto take = [&](uint64_t& field) {
          if (field != 0xffffffffu) return;
          if (y + 8 > x + 4 + len) fail("short ZIP64 field of " + name);
          field = get_le(b, y, 8);
          y += 8;
        };
        take(e.size);
        take(e.compressed);
        take(local);
      }
      x += 4 + len;
    }
    pos += 46 + name_len + extra_len + comment_len;
    if (local > b.size() || b.size() - local < 30 || get_le(b, local, 4) != kLocalHeader)
      fail("bad local header for " + name);
    e.data_at = local + 30 + get_le(b, local + 26, 2) + get_le(b, local + 28, 2);
    if (e.data_at > b.size() || e.compressed > b.size() - e.data_at)
      fail("entry " + name + " extends past the end of the file");
    if (e.method == 0 && e.compressed != e.size)
      fail("stored entry " + name + " has different sizes");
    if (e.method != 0 && e.method != 8)
      fail("entry " + name + " uses zip method " + std::to_string(e.method) +
           " (only stored and deflate)");
    if (entries_.count(name)) fail("duplicate entry " + name);
    names_.push_back(name);
    entries_.emplace(std::move(name), std::move(e));
  }
}

std::string_view ZipArchive::read(const std::string& name) {
  auto it = entries_.find(name);
  if (it == entries_.end()) fail("no entry '" + name + "'");
  Entry& e = it->second;
  std::string_view data = bytes_.substr(e.data_at, e.compressed);
  if (e.method == 8) {
    if (e.inflated.size() != e.size || !e.checked) {
      // Bounded by the declared size, which deflate cannot exceed by more than 1032:1:
      // larger claims are refused instead of allocated.
      if (e.size > e.compressed * 1032 + 1024) fail("entry " + name + " claims an impossible size");
      e.inflated.assign(e.size, '\0');
      z_stream z{};
      if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail("zlib init failed");
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
      z.avail_in = static_cast<uInt>(data.size());
      z.next_out = reinterpret_cast<Bytef*>(e.inflated.data());
      z.avail_out = static_cast<uInt>(e.size);
      const int rc = ::inflate(&z, Z_FINISH);
      const uLong produced = z.total_out;
      inflateEnd(&z);
      if (rc != Z_STREAM_END || produced != e.size) fail("entry " + name + " is corrupt (deflate)");
    }
    data = e.inflated;
  }
  if (!e.checked) {
    if (crc_of(data) != e.crc) fail("entry " + name + " fails its CRC check");
    e.checked = true;
  }
  return data;
}

}  // namespace nabla::serialize::detail
