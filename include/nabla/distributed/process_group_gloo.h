#pragma once
// ProcessGroupGloo: collectives over TCP with Gloo (Debian's libgloo-dev, the library
// LibTorch links), ranks meeting through a Store (c10d::ProcessGroupGloo). Without Gloo at
// build time (NABLA_DISTRIBUTED off or libgloo-dev missing) the constructor throws a
// nabla::Error saying so.
#include <memory>
#include <string>
#include <vector>

#include "nabla/distributed/process_group.h"
#include "nabla/distributed/store.h"

namespace gloo::transport {
class Device;
}

namespace nabla::distributed {

class ProcessGroupGloo : public ProcessGroup {
 public:
  struct Options : ProcessGroup::Options {
    explicit Options(std::chrono::milliseconds timeout = kProcessGroupDefaultTimeout);
    static std::shared_ptr<Options> create(
        std::chrono::milliseconds timeout = kProcessGroupDefaultTimeout) {
      return std::make_shared<Options>(timeout);
    }
    /// The network device to use (the first); empty: createDefaultDevice().
    std::vector<std::shared_ptr<::gloo::transport::Device>> devices;
    int threads = 1;  // LibTorch's option; nabla's group runs collectives on one thread
  };

  /// A TCP device bound to the address `hostname` resolves to ("127.0.0.1" on loopback).
  static std::shared_ptr<::gloo::transport::Device> createDeviceForHostname(
      const std::string& hostname);
  /// A TCP device on the network interface `interface` ("lo", "eth0").
  static std::shared_ptr<::gloo::transport::Device> createDeviceForInterface(
      const std::string& interface);
  /// GLOO_SOCKET_IFNAME's interface if set, else the address of this machine's hostname.
  static std::shared_ptr<::gloo::transport::Device> createDefaultDevice();

  /// Connects to every other rank through `store` (blocks until all `size` ranks have
  /// arrived or the options' timeout passes: a nabla::Error naming the ranks missing).
  ProcessGroupGloo(const std::shared_ptr<Store>& store, int rank, int size,
                   std::shared_ptr<Options> options = Options::create());
  ~ProcessGroupGloo() override;

  const std::string getBackendName() const override { return "gloo"; }
  std::shared_ptr<Options> getOptions() { return options_; }

 protected:
  void run_allreduce(void* data, size_t count, ScalarType dtype, ReduceOp op,
                     std::chrono::milliseconds timeout) override;
  void run_broadcast(void* data, size_t bytes, int root,
                     std::chrono::milliseconds timeout) override;
  void run_allgather(const void* in, void* out, size_t bytes,
                     std::chrono::milliseconds timeout) override;
  void run_barrier(std::chrono::milliseconds timeout) override;
  void abort_backend() override;

 private:
  struct Impl;
  std::shared_ptr<Options> options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nabla::distributed
