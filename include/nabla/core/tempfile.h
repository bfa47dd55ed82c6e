#pragma once
// Temporary files, as c10::make_tempfile: a new empty file under $TMPDIR (or /tmp) whose
// name starts with `name_prefix`, removed when the TempFile is destroyed.
#include <optional>
#include <string>

namespace nabla {

struct TempFile {
  explicit TempFile(std::string name) : name(std::move(name)) {}
  TempFile(TempFile&& other) noexcept : name(std::move(other.name)) { other.name.clear(); }
  TempFile& operator=(TempFile&& other) noexcept;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();
  std::string name;
};

/// A new temporary file, or nullopt when none can be made.
std::optional<TempFile> try_make_tempfile(std::string name_prefix = "nabla-file-");
/// A new temporary file; a nabla::Error naming the directory when none can be made.
TempFile make_tempfile(std::string name_prefix = "nabla-file-");

}  // namespace nabla
