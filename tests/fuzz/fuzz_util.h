#pragma once
// What every fuzz target shares: the rule for what a reader may do with bad bytes, a
// scratch file for readers that take a path, and byte-exact tensor comparison.
//
// The rule (docs/reliability.md): a reader answers bad bytes with a nabla::Error whose message
// names the reader. Anything else — another exception type, an internal assertion, an
// error that does not say who raised it — aborts, so libFuzzer keeps the input as a
// crash. Memory errors, UB and huge allocations are caught by ASan, UBSan and
// -malloc_limit_mb.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

#include "nabla/core/error.h"
#include "nabla/core/tensor.h"

namespace nabla::fuzz {

[[noreturn]] inline void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz: %s\n", why.c_str());
  std::abort();
}

/// Runs `body`; true when it returned, false when it raised a clear nabla::Error (one
/// whose message starts with one of `prefixes`).
template <class F>
bool accepts(std::initializer_list<std::string_view> prefixes, F&& body) {
  try {
    body();
    return true;
  } catch (const Error& e) {
    const std::string_view msg = e.what();
    // At the start only: the input's own bytes may appear later in a message.
    if (msg.substr(0, 25) == "internal assertion failed")
      fail("internal assertion: " + std::string(msg));
    for (std::string_view p : prefixes)
      if (msg.substr(0, p.size()) == p) return false;
    fail("error that does not name the reader: " + std::string(msg));
  } catch (const std::exception& e) {
    fail(std::string("exception other than nabla::Error: ") + e.what());
  }
}

/// A file owned by this process, rewritten for each input: in $TMPDIR, else /dev/shm
/// (memory: rewriting a file on disk costs milliseconds, 15x the reader), else /tmp.
class ScratchFile {
 public:
  explicit ScratchFile(const char* stem) {
    const char* env = std::getenv("TMPDIR");
    const std::string dir = env && *env                       ? env
                            : ::access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                                              : "/tmp";
    path_ = dir + "/nabla_fuzz_" + stem + "_XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) fail("cannot create " + path_);
    ::close(fd);
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& write(const uint8_t* data, size_t size) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
      fail("cannot write " + path_);
    return path_;
  }

 private:
  std::string path_;
};

/// Same dtype, shape and bytes (NaN payloads included, which equal() would not match).
inline bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.nbytes() == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

/// Reads every byte of the tensor's storage, so ASan checks the whole allocation.
inline uint64_t touch(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data_ptr());
  uint64_t sum = 0;
  for (size_t i = 0; i < c.nbytes(); ++i) sum = sum * 31 + p[i];
  return sum;
}

}  // namespace nabla::fuzz
