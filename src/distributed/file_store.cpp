// FileStore: an append-only log of records in one file, shared by the processes through
// the file system. Each operation takes an exclusive flock, reads the records appended
// since its last read into its cache, and appends its own; a later record of a key
// replaces an earlier one. A record: u32 key length, key, u8 kind (1 set, 0 delete),
// u64 value length, value. A torn record at the end (a process killed mid-write) is
// never complete, so it is never read.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "nabla/core/error.h"
#include "nabla/distributed/store.h"

namespace nabla::distributed {
namespace {
constexpr const char* kCleanupKey = "__nabla_filestore_cleanup";

void append(std::string& out, const void* p, size_t n) {
  out.append(static_cast<const char*>(p), n);
}
}  // namespace

// Holds the file's lock and brings the cache up to date.
class FileStore::Locked {
 public:
  explicit Locked(FileStore& s) : s_(s), lock_(s.mutex_) {
    fd_ = ::open(s.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    NABLA_CHECK(fd_ >= 0, "FileStore: cannot open '", s.path_, "': ", std::strerror(errno));
    if (::flock(fd_, LOCK_EX) != 0) {
      const int err = errno;
      ::close(fd_);
      throw Error(str("FileStore: cannot lock '", s.path_, "': ", std::strerror(err)));
    }
    refresh();
  }
  ~Locked() { ::close(fd_); }  // closing releases the flock
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

  void write(const std::string& key, const std::vector<uint8_t>* value) {
    std::string rec;
    const auto klen = static_cast<uint32_t>(key.size());
    const uint8_t kind = value ? 1 : 0;
    const uint64_t vlen = value ? value->size() : 0;
    append(rec, &klen, 4);
    rec += key;
    append(rec, &kind, 1);
    append(rec, &vlen, 8);
    if (value) append(rec, value->data(), value->size());
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    NABLA_CHECK(end == s_.read_to_, "FileStore '", s_.path_,
                "': the file changed under the lock (was it replaced or truncated?)");
    size_t done = 0;
    while (done < rec.size()) {
      ssize_t n = ::write(fd_, rec.data() + done, rec.size() - done);
      if (n < 0 && errno == EINTR) continue;
      NABLA_CHECK(n > 0, "FileStore: cannot write '", s_.path_, "': ", std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    s_.read_to_ += static_cast<int64_t>(rec.size());
    if (value)
      s_.cache_[key] = *value;
    else
      s_.cache_.erase(key);
  }

 private:
  void refresh() {
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    NABLA_CHECK(end >= s_.read_to_, "FileStore '", s_.path_,
                "' is shorter than what this store read before (was it truncated?)");
    if (end == s_.read_to_) return;
    std::string buf(static_cast<size_t>(end - s_.read_to_), '\0');
    NABLA_CHECK(
        ::pread(fd_, buf.data(), buf.size(), s_.read_to_) == static_cast<ssize_t>(buf.size()),
        "FileStore: cannot read '", s_.path_, "': ", std::strerror(errno));
    size_t at = 0;
    for (;;) {
      uint32_t klen;
      uint64_t vlen;
      if (buf.size() - at < 4) break;
      std::memcpy(&klen, buf.data() + at, 4);
      if (buf.size() - at < 4 + size_t{klen} + 9) break;
      std::memcpy(&vlen, buf.data() + at + 4 + klen + 1, 8);
      if (buf.size() - at - 4 - klen - 9 < vlen) break;
      std::string key = buf.substr(at + 4, klen);
      const uint8_t kind = static_cast<uint8_t>(buf[at + 4 + klen]);
      const char* v = buf.data() + at + 4 + klen + 9;
      if (kind)
        s_.cache_[key].assign(v, v + vlen);
      else
        s_.cache_.erase(key);
      at += 4 + klen + 9 + vlen;
    }
    s_.read_to_ += static_cast<int64_t>(at);
  }

  FileStore& s_;
  std::lock_guard<std::mutex> lock_;
  int fd_ = -1;
};

FileStore::FileStore(std::string path, int numWorkers)
    : path_(std::move(path)), num_workers_(numWorkers) {
  NABLA_CHECK(!path_.empty(), "FileStore: the path is empty");
  Locked lock(*this);  // fails here, with the path, if the file cannot be made
}

FileStore::~FileStore() {
  try {
    if (num_workers_ > 0 && add(kCleanupKey, 1) >= num_workers_) ::unlink(path_.c_str());
  } catch (const std::exception&) {
    // A destructor does not throw; the file stays behind.
  }
}

void FileStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  Locked lock(*this);
  lock.write(key, &value);
}

std::vector<uint8_t> FileStore::compareSet(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  Locked lock(*this);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    if (!expected.empty()) return expected;
    lock.write(key, &desired);
    return desired;
  }
  if (it->second == expected) lock.write(key, &desired);
  return cache_[key];
}

int64_t FileStore::add(const std::string& key, int64_t value) {
  Locked lock(*this);
  auto it = cache_.find(key);
  int64_t now = value;
  if (it != cache_.end() && !it->second.empty())
    now += std::stoll(std::string(it->second.begin(), it->second.end()));
  const std::string text = std::to_string(now);
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  lock.write(key, &bytes);
  return now;
}

bool FileStore::deleteKey(const std::string& key) {
  Locked lock(*this);
  if (!cache_.count(key)) return false;
  lock.write(key, nullptr);
  return true;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  Locked lock(*this);
  return std::all_of(keys.begin(), keys.end(), [&](const auto& k) { return cache_.count(k) > 0; });
}

int64_t FileStore::getNumKeys() {
  Locked lock(*this);
  return static_cast<int64_t>(cache_.size() - cache_.count(kCleanupKey));
}

std::optional<std::vector<uint8_t>> FileStore::try_get(const std::string& key) {
  Locked lock(*this);
  auto it = cache_.find(key);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

}  // namespace nabla::distributed
