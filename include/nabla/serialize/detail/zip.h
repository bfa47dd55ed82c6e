#pragma once
// ZIP archives, the container of .npz files, PyTorch's torch.save files and PNNX's
// weights: writing stored entries (optionally aligned), reading stored and deflated ones.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nabla::serialize::detail {

/// An archive of `entries` (name, contents), stored uncompressed with CRC-32s, in order.
/// With `alignment` > 1 each entry's contents start at a multiple of it from the start of
/// the archive (padding in an extra field of the local header, as PyTorch's writer does,
/// so a reader can map tensors in place). Archives of 4 GiB or more are refused (`op`
/// names the caller in the error).
std::string encode_zip(const std::vector<std::pair<std::string, std::string_view>>& entries,
                       size_t alignment, const char* op);

/// A read-only view of an archive held in memory (`bytes` must outlive it). The central
/// directory is checked when constructed (ZIP64 records understood); a malformed archive
/// is a nabla::Error naming `op`, `source` and what is wrong.
class ZipArchive {
 public:
  ZipArchive(std::string_view bytes, std::string source, const char* op);
  /// The entries' names, in the central directory's order.
  const std::vector<std::string>& names() const { return names_; }
  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  /// The contents of `name`, CRC-checked: a view into the archive for a stored entry, into
  /// a buffer this object keeps for a deflated one. A missing name is an error.
  std::string_view read(const std::string& name);

 private:
  struct Entry {
    uint64_t data_at = 0, compressed = 0, size = 0;
    uint32_t crc = 0;
    uint16_t method = 0;
    bool checked = false;
    std::string inflated;
  };
  [[noreturn]] void fail(const std::string& what) const;
  std::string_view bytes_;
  std::string source_;
  const char* op_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace nabla::serialize::detail
