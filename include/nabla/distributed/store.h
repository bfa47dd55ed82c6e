#pragma once
// Stores: the key-value meeting point where the processes of a group find each other
// (c10d::Store). Gloo's ranks publish their addresses in one; DistributedDataParallel and
// tests may share small values through it. get() and wait() block until the keys exist or
// the store's timeout passes, then throw a nabla::Error naming the missing keys.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nabla/distributed/types.h"

namespace nabla::distributed {

class Store {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(300);
  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds(0);

  explicit Store(const std::chrono::milliseconds& timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store();

  void set(const std::string& key, const std::string& value);
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  /// Sets `key` to `desired` if it holds `expected` (or is absent and `expected` is
  /// empty); returns the value it holds afterwards.
  virtual std::vector<uint8_t> compareSet(const std::string& key,
                                          const std::vector<uint8_t>& expected,
                                          const std::vector<uint8_t>& desired) = 0;
  /// The value of `key`, waiting for it up to the store's timeout.
  virtual std::vector<uint8_t> get(const std::string& key);
  /// Adds `value` to the integer held by `key` (0 when absent); returns the sum.
  virtual int64_t add(const std::string& key, int64_t value) = 0;
  virtual bool deleteKey(const std::string& key) = 0;
  /// Whether all `keys` exist now.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual int64_t getNumKeys() = 0;
  /// Blocks until all `keys` exist (the store's timeout, or `timeout`; kNoTimeout: forever).
  virtual void wait(const std::vector<std::string>& keys);
  virtual void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout);

  const std::chrono::milliseconds& getTimeout() const noexcept { return timeout_; }
  virtual void setTimeout(const std::chrono::milliseconds& timeout) { timeout_ = timeout; }

 protected:
  /// The value of `key` if it exists now (what get() waits on).
  virtual std::optional<std::vector<uint8_t>> try_get(const std::string& key) = 0;
  /// What the store's errors call it ("FileStore /tmp/x", "TCPStore 10.0.0.1:29500").
  virtual std::string describe() const = 0;

  std::chrono::milliseconds timeout_;
};

/// A store in this process's memory: for ranks that are threads of one process.
class HashStore : public Store {
 public:
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;

 protected:
  std::optional<std::vector<uint8_t>> try_get(const std::string& key) override;
  std::string describe() const override { return "HashStore"; }

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<uint8_t>> map_;
};

/// A store in a file that all processes can open (a shared or local file system): each
/// operation locks the file (flock), reads what was appended since, and appends. The last
/// of `numWorkers` stores to be destroyed deletes the file (-1: never).
class FileStore : public Store {
 public:
  FileStore(std::string path, int numWorkers);
  ~FileStore() override;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;

 protected:
  std::optional<std::vector<uint8_t>> try_get(const std::string& key) override;
  std::string describe() const override { return "FileStore " + path_; }

 private:
  class Locked;
  std::string path_;
  int num_workers_;
  std::mutex mutex_;
  std::map<std::string, std::vector<uint8_t>> cache_;  // the file's contents read so far
  int64_t read_to_ = 0;
};

struct TCPStoreOptions {
  static constexpr uint16_t kDefaultPort = 29500;
  uint16_t port = kDefaultPort;
  /// This process runs the server (rank 0, at MASTER_ADDR:MASTER_PORT).
  bool isServer = false;
  /// With waitWorkers, the constructor returns once this many stores (the server's
  /// included) have connected.
  std::optional<std::size_t> numWorkers;
  bool waitWorkers = true;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  bool multiTenant = false;
};

/// A store served over TCP by one process (isServer) to the others, which connect to
/// `host`:port, retrying until the timeout (then a nabla::Error naming the address and
/// the last connection error).
class TCPStore : public Store {
 public:
  explicit TCPStore(std::string host, const TCPStoreOptions& opts = {});
  ~TCPStore() override;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  /// The port served (useful with port 0: the system picks a free one).
  uint16_t getPort() const { return port_; }
  const std::string& getHost() const { return host_; }

 protected:
  std::optional<std::vector<uint8_t>> try_get(const std::string& key) override;
  std::string describe() const override;

 private:
  class Server;
  class Connection;
  std::string host_;
  uint16_t port_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Connection> connection_;
};

/// Another store's keys under "prefix/": groups that share one store keep apart.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;
  void setTimeout(const std::chrono::milliseconds& timeout) override;
  std::shared_ptr<Store> getUnderlyingStore() const { return store_; }

 protected:
  std::optional<std::vector<uint8_t>> try_get(const std::string& key) override;
  std::string describe() const override;

 private:
  std::string joined(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> joined(const std::vector<std::string>& keys) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace nabla::distributed
