#include "nabla/core/detail/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
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

std::string base_name_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

constexpr const char* kTempSuffix = ".tmp.";
constexpr size_t kTempRandomChars = 6;  // mkostemp's XXXXXX

bool same_file(int fd, const std::string& name) {
  struct stat by_fd {
  }, by_name{};
  return ::fstat(fd, &by_fd) == 0 && ::lstat(name.c_str(), &by_name) == 0 &&
         by_fd.st_dev == by_name.st_dev && by_fd.st_ino == by_name.st_ino;
}

// Note [Stale temporaries] (atomic_file.h): removes `path.tmp.XXXXXX` files that no live
// writer holds locked. Best effort: a directory that cannot be listed is left alone.
void remove_stale_temporaries(const std::string& path) {
  const std::string prefix = base_name_of(path) + kTempSuffix;
  const std::string dir_name = directory_of(path);
  DIR* dir = ::opendir(dir_name.c_str());
  if (!dir) return;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() != prefix.size() + kTempRandomChars || name.compare(0, prefix.size(), prefix))
      continue;
    const std::string full = dir_name + "/" + name;
    int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    // Unlink only what this descriptor locked: the name may have been replaced meanwhile.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && same_file(fd, full)) ::unlink(full.c_str());
    ::close(fd);
  }
  ::closedir(dir);
}

// Owns the temporary file until it has been renamed into place.
class TempFile {
 public:
  TempFile(const std::string& path, const char* op) {
    // A cleaner in another process may lock and remove a file between its creation and
    // our lock; then the name is gone (or reused) and we take a new one.
    for (int attempt = 0;; ++attempt) {
      name_ = path + kTempSuffix + std::string(kTempRandomChars, 'X');
      std::vector<char> buf(name_.begin(), name_.end());
      buf.push_back('\0');
      fd_ = ::mkostemp(buf.data(), O_CLOEXEC);
      NABLA_CHECK(fd_ >= 0, op, ": cannot create a temporary file next to '", path,
                  "': ", std::strerror(errno), " (the previous file, if any, is unchanged)");
      name_.assign(buf.data());
      // Held until close (or the process dies): marks the file as in use.
      const bool locked = ::flock(fd_, LOCK_EX) == 0;
      if (!locked || same_file(fd_, name_) || attempt == 3) break;
      ::close(fd_);
    }
  }
  ~TempFile() {
    if (!renamed_) ::unlink(name_.c_str());  // before close: the lock still marks it ours
    if (fd_ >= 0) ::close(fd_);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  void mark_renamed() { renamed_ = true; }

 private:
  std::string name_;
  int fd_ = -1;
  bool renamed_ = false;
};

}  // namespace

void write_file_atomically(const std::string& path, std::string_view data, const char* op) {
  NABLA_CHECK(!path.empty(), op, ": got an empty path, expected a file name");
  remove_stale_temporaries(path);
  TempFile tmp(path, op);
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(tmp.fd(), p, left);
    if (n < 0 && errno == EINTR) continue;
    NABLA_CHECK(n > 0, op, ": cannot write '", path, "' (", data.size() - left, " of ", data.size(),
                " bytes written to the temporary file '", tmp.name(), "'): ", std::strerror(errno),
                " (the previous file, if any, is unchanged)");
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates 0600; use the usual 0644 (reading the umask would briefly change
  // it for every thread).
  ::fchmod(tmp.fd(), 0644);
  NABLA_CHECK(::fsync(tmp.fd()) == 0, op, ": cannot flush '", path, "' (temporary file '",
              tmp.name(), "'): ", std::strerror(errno),
              " (the previous file, if any, is unchanged)");
  // Renamed while still open: closing would drop the lock and let another writer's
  // cleanup (Note [Stale temporaries]) take the file. fsync has reported write errors.
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
