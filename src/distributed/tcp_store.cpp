// TCPStore: one process serves the keys (a thread polling its sockets), every store
// (the server's own included) is a client of one connection. A request is
// [u8 command][u32 key length][key][u64 length][bytes][u64 length][bytes], a reply
// [u8 found][u64 length][bytes]; each request is answered before the next is read.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include "nabla/core/error.h"
#include "nabla/distributed/store.h"

namespace nabla::distributed {
namespace {

enum Command : uint8_t { kSet = 1, kGet, kAdd, kCompareSet, kDelete, kCheck, kNumKeys };
constexpr const char* kWorkersKey = "__nabla_tcpstore_workers";

using Bytes = std::vector<uint8_t>;

// Whole reads and writes; false when the peer closed or the socket failed.
bool send_all(int fd, const void* p, size_t n) {
  auto* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t k = ::send(fd, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}
bool recv_all(int fd, void* p, size_t n) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t k = ::recv(fd, c, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

void put_bytes(std::string& out, const Bytes& b) {
  const uint64_t n = b.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  out.append(reinterpret_cast<const char*>(b.data()), b.size());
}
// Lengths beyond this are a corrupt or foreign peer, not a store value.
constexpr uint64_t kMaxValue = uint64_t{1} << 32;
bool get_bytes(int fd, Bytes& b) {
  uint64_t n;
  if (!recv_all(fd, &n, 8) || n > kMaxValue) return false;
  b.resize(n);
  return recv_all(fd, b.data(), n);
}

int64_t to_int(const Bytes& b) {
  return b.empty() ? 0 : std::stoll(std::string(b.begin(), b.end()));
}
Bytes from_int(int64_t v) {
  const std::string s = std::to_string(v);
  return Bytes(s.begin(), s.end());
}

}  // namespace

// ---- Server -------------------------------------------------------------------------------

class TCPStore::Server {
 public:
  explicit Server(uint16_t port) {
    listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    NABLA_CHECK(listen_ >= 0, "TCPStore: cannot create a socket: ", std::strerror(errno));
    int one = 1;
    ::setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(port);
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_, 128) != 0) {
      const int err = errno;
      ::close(listen_);
      throw Error(str("TCPStore: cannot serve on port ", port, ": ", std::strerror(err),
                      err == EADDRINUSE ? " (another process, or an earlier run, holds the port: "
                                          "choose another MASTER_PORT)"
                                        : ""));
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    NABLA_CHECK(::pipe2(wake_, O_CLOEXEC) == 0, "TCPStore: pipe: ", std::strerror(errno));
    thread_ = std::thread([this] { run(); });
  }
  ~Server() {
    const char c = 0;
    [[maybe_unused]] auto n = ::write(wake_[1], &c, 1);
    thread_.join();
    for (int fd : clients_) ::close(fd);
    ::close(listen_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }
  uint16_t port() const { return port_; }

 private:
  void run() {
    for (;;) {
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_, POLLIN, 0}};
      for (int fd : clients_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) {
        int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          clients_.push_back(fd);
        }
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        if (!serve(fds[i].fd)) {
          ::close(fds[i].fd);
          clients_.erase(std::find(clients_.begin(), clients_.end(), fds[i].fd));
        }
      }
    }
  }

  // Answers one request; false when the client is gone or spoke nonsense.
  bool serve(int fd) {
    uint8_t cmd;
    uint32_t klen;
    if (!recv_all(fd, &cmd, 1) || !recv_all(fd, &klen, 4) || klen > kMaxValue) return false;
    std::string key(klen, '\0');
    Bytes a, b;
    if (!recv_all(fd, key.data(), klen) || !get_bytes(fd, a) || !get_bytes(fd, b)) return false;
    bool found = true;
    Bytes reply;
    auto it = map_.find(key);
    switch (cmd) {
      case kSet:
        map_[key] = a;
        break;
      case kGet:
        found = it != map_.end();
        if (found) reply = it->second;
        break;
      case kAdd: {
        int64_t v = (it == map_.end() ? 0 : to_int(it->second)) + to_int(a);
        reply = map_[key] = from_int(v);
        break;
      }
      case kCompareSet:
        if (it == map_.end()) {
          reply = a.empty() ? (map_[key] = b) : a;
        } else {
          if (it->second == a) it->second = b;
          reply = it->second;
        }
        break;
      case kDelete:
        found = map_.erase(key) > 0;
        break;
      case kCheck:
        found = it != map_.end();
        break;
      case kNumKeys:
        reply = from_int(static_cast<int64_t>(map_.size() - map_.count(kWorkersKey)));
        break;
      default:
        return false;
    }
    std::string out(1, static_cast<char>(found));
    put_bytes(out, reply);
    return send_all(fd, out.data(), out.size());
  }

  int listen_ = -1;
  int wake_[2] = {-1, -1};
  uint16_t port_ = 0;
  std::vector<int> clients_;
  std::map<std::string, Bytes> map_;
  std::thread thread_;
};

// ---- Client -------------------------------------------------------------------------------

class TCPStore::Connection {
 public:
  Connection(const std::string& host, uint16_t port, std::chrono::milliseconds timeout)
      : name_(str(host, ":", port)) {
    const auto start = std::chrono::steady_clock::now();
    std::string last = "no attempt";
    for (;;) {
      fd_ = try_connect(host, port, last);
      if (fd_ >= 0) break;
      if (timeout > kNoTimeout && std::chrono::steady_clock::now() - start >= timeout)
        throw Error(str("TCPStore: could not connect to ", name_, " within ", timeout.count(),
                        " ms (", last,
                        "); is rank 0 running, and are MASTER_ADDR and "
                        "MASTER_PORT the same on every rank?"));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Connection() {
    if (fd_ >= 0) ::close(fd_);
  }

  // One request and its reply; `found` is the reply's flag.
  Bytes request(Command cmd, const std::string& key, const Bytes& a = {}, const Bytes& b = {},
                bool* found = nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string out(1, static_cast<char>(cmd));
    const auto klen = static_cast<uint32_t>(key.size());
    out.append(reinterpret_cast<const char*>(&klen), 4);
    out += key;
    put_bytes(out, a);
    put_bytes(out, b);
    uint8_t f = 0;
    Bytes reply;
    NABLA_CHECK(
        send_all(fd_, out.data(), out.size()) && recv_all(fd_, &f, 1) && get_bytes(fd_, reply),
        "TCPStore: lost the connection to the server at ", name_,
        " (the process serving the store, rank 0, has exited or failed)");
    if (found) *found = f != 0;
    return reply;
  }
  const std::string& name() const { return name_; }

 private:
  static int try_connect(const std::string& host, uint16_t port, std::string& last) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const std::string service = std::to_string(port);
    if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0) {
      last = str("cannot resolve '", host, "': ", gai_strerror(rc));
      return -1;
    }
    int fd = -1;
    for (addrinfo* ai = res; ai && fd < 0; ai = ai->ai_next) {
      fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        last = std::strerror(errno);
        ::close(fd);
        fd = -1;
      }
    }
    ::freeaddrinfo(res);
    return fd;
  }

  std::string name_;
  int fd_ = -1;
  std::mutex mutex_;
};

// ---- TCPStore -----------------------------------------------------------------------------

TCPStore::TCPStore(std::string host, const TCPStoreOptions& opts)
    : Store(opts.timeout), host_(std::move(host)), port_(opts.port) {
  if (opts.isServer) {
    server_ = std::make_unique<Server>(opts.port);
    port_ = server_->port();
  }
  NABLA_CHECK(port_ != 0, "TCPStore: a client needs the server's port, got 0");
  connection_ = std::make_unique<Connection>(host_, port_, timeout_);
  const int64_t arrived = add(kWorkersKey, 1);
  if (opts.isServer && opts.waitWorkers && opts.numWorkers) {
    const auto want = static_cast<int64_t>(*opts.numWorkers);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t now = arrived; now < want; now = add(kWorkersKey, 0)) {
      if (timeout_ > kNoTimeout && std::chrono::steady_clock::now() - start >= timeout_)
        throw Error(str("TCPStore: ", now, " of ", want, " workers connected to port ", port_,
                        " within ", timeout_.count(), " ms (is WORLD_SIZE right on every rank?)"));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

TCPStore::~TCPStore() = default;

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  connection_->request(kSet, key, value);
}
std::vector<uint8_t> TCPStore::compareSet(const std::string& key,
                                          const std::vector<uint8_t>& expected,
                                          const std::vector<uint8_t>& desired) {
  return connection_->request(kCompareSet, key, expected, desired);
}
int64_t TCPStore::add(const std::string& key, int64_t value) {
  return to_int(connection_->request(kAdd, key, from_int(value)));
}
bool TCPStore::deleteKey(const std::string& key) {
  bool found = false;
  connection_->request(kDelete, key, {}, {}, &found);
  return found;
}
bool TCPStore::check(const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    bool found = false;
    connection_->request(kCheck, k, {}, {}, &found);
    if (!found) return false;
  }
  return true;
}
int64_t TCPStore::getNumKeys() { return to_int(connection_->request(kNumKeys, "")); }
std::optional<std::vector<uint8_t>> TCPStore::try_get(const std::string& key) {
  bool found = false;
  Bytes v = connection_->request(kGet, key, {}, {}, &found);
  if (!found) return std::nullopt;
  return v;
}
std::string TCPStore::describe() const { return str("TCPStore ", host_, ":", port_); }

}  // namespace nabla::distributed
