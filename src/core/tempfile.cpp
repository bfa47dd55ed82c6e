// Temporary files (nabla/core/tempfile.h).
#include "nabla/core/tempfile.h"

#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "nabla/core/error.h"

namespace nabla {
namespace {

std::string temp_dir() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

}  // namespace

TempFile& TempFile::operator=(TempFile&& other) noexcept {
  if (this != &other) {
    if (!name.empty()) ::unlink(name.c_str());
    name = std::move(other.name);
    other.name.clear();
  }
  return *this;
}

TempFile::~TempFile() {
  if (!name.empty()) ::unlink(name.c_str());
}

std::optional<TempFile> try_make_tempfile(std::string name_prefix) {
  std::string pattern = temp_dir() + "/" + name_prefix + "XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = ::mkstemp(buffer.data());
  if (fd < 0) return std::nullopt;
  ::close(fd);
  return TempFile(std::string(buffer.data()));
}

TempFile make_tempfile(std::string name_prefix) {
  auto file = try_make_tempfile(std::move(name_prefix));
  NABLA_CHECK(file.has_value(), "make_tempfile: cannot create a file in ", temp_dir());
  return std::move(*file);
}

}  // namespace nabla
