// ProcessGroupGloo: the contract of process_group.h on Gloo's collectives.
#include "nabla/distributed/process_group_gloo.h"

#include "nabla/core/error.h"

#if NABLA_HAVE_GLOO
#include <signal.h>
#include <unistd.h>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <cstdlib>

#include "distributed/backends/reduce_functions.h"

namespace nabla::distributed {
namespace {

// Gloo's rendezvous reads and writes through nabla's Store.
class GlooStore : public ::gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    auto v = store_->get(key);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override {
    store_->wait(keys, t);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// Gloo takes its timeouts as durations it adds to now: "none" is a week.
std::chrono::milliseconds gloo_timeout(std::chrono::milliseconds t) {
  return t > kNoTimeout ? t : std::chrono::hours(24 * 7);
}

std::shared_ptr<::gloo::transport::Device> make_device(const ::gloo::transport::tcp::attr& attr,
                                                       const std::string& what) {
  try {
    return ::gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throw Error(str("ProcessGroupGloo: cannot make a TCP device for ", what, ": ", e.what()));
  }
}

// Gloo writes to its sockets with writev: a write to a rank that has died raises SIGPIPE,
// whose default action ends this process before Gloo can report the dead peer as an error.
// A program that left SIGPIPE at its default gets it ignored (writes then fail with EPIPE,
// which Gloo turns into an exception and the collective into a nabla::Error naming the
// rank); a program that installed its own handler keeps it. Python, and so PyTorch, runs
// with SIGPIPE ignored.
void ignore_sigpipe_once() {
  static const bool done = [] {
    struct sigaction current {};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      ::sigemptyset(&ignore.sa_mask);
      ::sigaction(SIGPIPE, &ignore, nullptr);
    }
    return true;
  }();
  (void)done;
}

}  // namespace

struct ProcessGroupGloo::Impl {
  std::shared_ptr<Store> store;  // kept: a TCPStore's server must outlive the rendezvous
  std::shared_ptr<::gloo::rendezvous::Context> context;
  uint32_t tag = 0;
};

ProcessGroupGloo::Options::Options(std::chrono::milliseconds timeout)
    : ProcessGroup::Options("gloo", timeout) {}

std::shared_ptr<::gloo::transport::Device> ProcessGroupGloo::createDeviceForHostname(
    const std::string& hostname) {
  ::gloo::transport::tcp::attr attr;
  attr.hostname = hostname;
  return make_device(attr, "host '" + hostname + "'");
}

std::shared_ptr<::gloo::transport::Device> ProcessGroupGloo::createDeviceForInterface(
    const std::string& interface) {
  ::gloo::transport::tcp::attr attr;
  attr.iface = interface;
  return make_device(attr, "interface '" + interface + "'");
}

std::shared_ptr<::gloo::transport::Device> ProcessGroupGloo::createDefaultDevice() {
  if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface)
    return createDeviceForInterface(iface);
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0]) {
    try {
      return createDeviceForHostname(host);
    } catch (const Error&) {
      // The hostname does not resolve to an address of this machine: loopback, as LibTorch.
    }
  }
  return createDeviceForHostname("127.0.0.1");
}

ProcessGroupGloo::ProcessGroupGloo(const std::shared_ptr<Store>& store, int rank, int size,
                                   std::shared_ptr<Options> options)
    : ProcessGroup(rank, size), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  NABLA_CHECK(store != nullptr, "ProcessGroupGloo: the store is null");
  NABLA_CHECK(options_ != nullptr, "ProcessGroupGloo: the options are null");
  set_timeout(options_->timeout);
  ignore_sigpipe_once();
  impl_->store = store;
  auto device = options_->devices.empty() ? createDefaultDevice() : options_->devices.front();
  // Several groups on one store need a PrefixStore each (as in LibTorch): the keys below
  // are the group's.
  auto prefixed = std::make_shared<PrefixStore>("nabla_gloo", store);
  prefixed->setTimeout(gloo_timeout(options_->timeout));
  // The world size every rank was given must agree, and each rank be taken once: the
  // first rank's size is the group's, and a mismatch is said before Gloo waits for ranks
  // that will never come.
  const std::string mine = std::to_string(size);
  const auto agreed = prefixed->compareSet("world_size", {}, {mine.begin(), mine.end()});
  NABLA_CHECK(std::string(agreed.begin(), agreed.end()) == mine, "ProcessGroupGloo: rank ", rank,
              " was given world size ", size, " but another rank was given ",
              std::string(agreed.begin(), agreed.end()));
  NABLA_CHECK(prefixed->add("rank_" + std::to_string(rank), 1) == 1, "ProcessGroupGloo: rank ",
              rank, " is claimed by two processes (RANK must differ on every process)");
  try {
    impl_->context = std::make_shared<::gloo::rendezvous::Context>(rank, size);
    impl_->context->setTimeout(gloo_timeout(options_->timeout));
    GlooStore gloo_store(prefixed);
    impl_->context->connectFullMesh(gloo_store, device);
  } catch (const std::exception& e) {
    throw Error(str("ProcessGroupGloo: rank ", rank, " of ", size,
                    " could not connect to the other ranks: ", e.what()));
  }
}

ProcessGroupGloo::~ProcessGroupGloo() { shutdown(); }

void ProcessGroupGloo::run_allreduce(void* data, size_t count, ScalarType dtype, ReduceOp op,
                                     std::chrono::milliseconds timeout) {
  ::gloo::AllreduceOptions opts(impl_->context);
  detail::dispatch_wire(dtype, [&](auto t) {
    using T = decltype(t);
    opts.setOutput(static_cast<T*>(data), count);
    opts.setReduceFunction(detail::reduce_function<T>(op));
  });
  opts.setTag(impl_->tag++);
  opts.setTimeout(gloo_timeout(timeout));
  ::gloo::allreduce(opts);
}

void ProcessGroupGloo::run_broadcast(void* data, size_t bytes, int root,
                                     std::chrono::milliseconds timeout) {
  ::gloo::BroadcastOptions opts(impl_->context);
  opts.setOutput(static_cast<uint8_t*>(data), bytes);
  opts.setRoot(root);
  opts.setTag(impl_->tag++);
  opts.setTimeout(gloo_timeout(timeout));
  ::gloo::broadcast(opts);
}

void ProcessGroupGloo::run_allgather(const void* in, void* out, size_t bytes,
                                     std::chrono::milliseconds timeout) {
  ::gloo::AllgatherOptions opts(impl_->context);
  opts.setInput(const_cast<uint8_t*>(static_cast<const uint8_t*>(in)), bytes);
  opts.setOutput(static_cast<uint8_t*>(out), bytes * static_cast<size_t>(getSize()));
  opts.setTag(impl_->tag++);
  opts.setTimeout(gloo_timeout(timeout));
  ::gloo::allgather(opts);
}

void ProcessGroupGloo::run_barrier(std::chrono::milliseconds timeout) {
  ::gloo::BarrierOptions opts(impl_->context);
  opts.setTag(impl_->tag++);
  opts.setTimeout(gloo_timeout(timeout));
  ::gloo::barrier(opts);
}

void ProcessGroupGloo::abort_backend() {
  if (impl_->context) impl_->context->closeConnections();
}

}  // namespace nabla::distributed

#else  // Built without Gloo: every entry point says so.

namespace nabla::distributed {
namespace {
[[noreturn]] void no_gloo() {
  throw Error(
      "ProcessGroupGloo: nabla was built without Gloo (install Debian's libgloo-dev and "
      "rebuild with NABLA_DISTRIBUTED=ON)");
}
}  // namespace
struct ProcessGroupGloo::Impl {};
ProcessGroupGloo::Options::Options(std::chrono::milliseconds timeout)
    : ProcessGroup::Options("gloo", timeout) {}
std::shared_ptr<::gloo::transport::Device> ProcessGroupGloo::createDeviceForHostname(
    const std::string&) {
  no_gloo();
}
std::shared_ptr<::gloo::transport::Device> ProcessGroupGloo::createDeviceForInterface(
    const std::string&) {
  no_gloo();
}
std::shared_ptr<::gloo::transport::Device> ProcessGroupGloo::createDefaultDevice() { no_gloo(); }
ProcessGroupGloo::ProcessGroupGloo(const std::shared_ptr<Store>&, int rank, int size,
                                   std::shared_ptr<Options>)
    : ProcessGroup(rank, size) {
  no_gloo();
}
ProcessGroupGloo::~ProcessGroupGloo() { shutdown(); }
void ProcessGroupGloo::run_allreduce(void*, size_t, ScalarType, ReduceOp,
                                     std::chrono::milliseconds) {
  no_gloo();
}
void ProcessGroupGloo::run_broadcast(void*, size_t, int, std::chrono::milliseconds) { no_gloo(); }
void ProcessGroupGloo::run_allgather(const void*, void*, size_t, std::chrono::milliseconds) {
  no_gloo();
}
void ProcessGroupGloo::run_barrier(std::chrono::milliseconds) { no_gloo(); }
void ProcessGroupGloo::abort_backend() {}
}  // namespace nabla::distributed

#endif
