// init_process_group: arguments first, then the environment (RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT), as torch.distributed's env:// initialisation.
#include "nabla/distributed/init.h"

#include <cstdlib>
#include <string>

#include "nabla/core/error.h"
#include "nabla/distributed/process_group_gloo.h"
#include "nabla/distributed/process_group_mpi.h"
#include "nabla/distributed/store.h"

namespace nabla::distributed {
namespace {

std::string from_env(const char* name, const std::string& given) {
  if (!given.empty()) return given;
  const char* v = std::getenv(name);
  NABLA_CHECK(v && *v, "init_process_group: ", name,
              " is not set (set it in the environment or pass it in InitOptions)");
  return v;
}

int int_from_env(const char* name, int given, int lo, int hi) {
  if (given >= 0 && !(given == 0 && std::string(name) == "MASTER_PORT")) return given;
  const std::string text = from_env(name, "");
  size_t used = 0;
  long v = -1;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  NABLA_CHECK(used == text.size() && v >= lo && v <= hi, "init_process_group: ", name, "='", text,
              "' is not an integer in [", lo, ", ", hi, "]");
  return static_cast<int>(v);
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

std::shared_ptr<ProcessGroup> init_process_group(const InitOptions& o) {
  if (o.backend == "mpi") {
    auto pg = ProcessGroupMPI::createProcessGroupMPI();
    if (o.world_size >= 0)
      NABLA_CHECK(pg->getSize() == o.world_size, "init_process_group: mpirun started ",
                  pg->getSize(), " processes but world_size is ", o.world_size);
    return pg;
  }
  NABLA_CHECK(o.backend == "gloo", "init_process_group: unknown backend '", o.backend,
              "' (expected \"gloo\" or \"mpi\")");
  const int size = int_from_env("WORLD_SIZE", o.world_size, 1, 1 << 20);
  const int rank = int_from_env("RANK", o.rank, 0, 1 << 20);
  NABLA_CHECK(rank < size, "init_process_group: RANK ", rank, " is out of range for WORLD_SIZE ",
              size, " (expected 0 <= RANK < WORLD_SIZE)");
  const std::string addr = from_env("MASTER_ADDR", o.master_addr);
  const int port = int_from_env("MASTER_PORT", o.master_port, 1, 65535);
  TCPStoreOptions so;
  so.port = static_cast<uint16_t>(port);
  so.isServer = rank == 0;
  so.numWorkers = static_cast<size_t>(size);
  so.waitWorkers = false;  // Gloo's rendezvous waits for the ranks, with their numbers
  so.timeout = o.timeout;
  auto store = std::make_shared<TCPStore>(addr, so);
  auto options = ProcessGroupGloo::Options::create(o.timeout);
  options->devices.push_back(is_loopback(addr)
                                 ? ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                 : ProcessGroupGloo::createDefaultDevice());
  return std::make_shared<ProcessGroupGloo>(store, rank, size, options);
}

}  // namespace nabla::distributed
