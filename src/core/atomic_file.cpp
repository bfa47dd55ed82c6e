#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::detail {
namespace {

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Owns the temporary file until it has been renamed into place.
class TempFile {
 public:
  TempFile(const std::string& path, const char* op) {
    name_ = path + ".tmp.XXXXXX";
    std::vector<char> buf(name_.begin(), name_.end());
    buf.push_back('\0');
    fd_ = ::mkostemp(buf.data(), O_CLOEXEC);
    NABLA_CHECK(fd_ >= 0, op, ": cannot create a temporary file next to '", path,
                "': ", std::strerror(errno));
    name_.assign(buf.data());
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) ::unlink(name_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void mark_renamed() { renamed_ = true; }

 private:
  std::string name_;
  int fd_ = -1;
  bool renamed_ = false;
};

}  // namespace

void write_file_atomically(const std::string& path, std::string_view data, const char* op) {
  NABLA_CHECK(!path.empty(), op, ": got an empty path, expected a file name");
  TempFile tmp(path, op);
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(tmp.fd(), p, left);
    if (n < 0 && errno == EINTR) continue;
    NABLA_CHECK(n > 0, op, ": cannot write '", tmp.name(), "': ", std::strerror(errno),
                " (the previous file, if any, is unchanged)");
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates 0600; use the usual 0644 (reading the umask would briefly change
  // it for every thread).
  ::fchmod(tmp.fd(), 0644);
  NABLA_CHECK(::fsync(tmp.fd()) == 0, op, ": cannot flush '", tmp.name(),
              "': ", std::strerror(errno), " (the previous file, if any, is unchanged)");
  NABLA_CHECK(tmp.close() == 0, op, ": cannot close '", tmp.name(), "': ", std::strerror(errno));
  NABLA_CHECK(::rename(tmp.name().c_str(), path.c_str()) == 0, op, ": cannot rename '", tmp.name(),
              "' to '", path, "': ", std::strerror(errno));
  tmp.mark_renamed();
  // Make the rename itself durable; a directory that cannot be opened is not an error.
  int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace nabla::detail
