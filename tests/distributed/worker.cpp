// distributed_worker: one rank of test_distributed's multi-process tests, started by it
// (Gloo: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment) or by mpirun.
//   distributed_worker [gtest flags]   runs this file's tests (collectives, DDP) on the
//                                      group of NABLA_TEST_BACKEND (gloo or mpi)
//   distributed_worker --fault=exit    trains; the last rank dies at step 2 (_Exit)
//   distributed_worker --fault=silent  trains; the last rank throws at step 2, catches it
//                                      and stops calling collectives, alive for 3 timeouts
// In the fault modes the other ranks print "detected: <error>" and exit 0 when their
// collective fails with a nabla::Error, 5 when it does not fail.
// NABLA_TEST_TIMEOUT_MS sets the group's timeout.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "distributed/collective_checks.h"
#include "distributed/ddp_checks.h"

namespace {
namespace dist = nabla::distributed;
std::shared_ptr<dist::ProcessGroup> g_pg;

std::chrono::milliseconds test_timeout() {
  const char* t = std::getenv("NABLA_TEST_TIMEOUT_MS");
  return std::chrono::milliseconds(t ? std::atol(t) : 60000);
}

int run_fault(const std::string& fault) {
  const int rank = g_pg->getRank(), last = g_pg->getSize() - 1;
  nabla::manual_seed(0);
  nabla::nn::Linear model(8, 4);
  for (int step = 0; step < 5; ++step) {
    const auto started = std::chrono::steady_clock::now();
    try {
      model->zero_grad();
      nabla::Tensor loss = model->forward(nabla::randn({16, 8})).pow(2).mean();
      loss.backward();
      if (rank == last && step == 2) {
        if (fault == "exit") std::_Exit(3);
        throw nabla::Error("injected failure in step 2");
      }
      for (auto& p : model->parameters()) {
        std::vector<nabla::Tensor> g{p.grad()};
        g_pg->allreduce(g)->wait();
      }
    } catch (const nabla::Error& e) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (rank == last) {
        std::cout << "rank " << rank << " stops calling collectives: " << e.what() << std::endl;
        std::this_thread::sleep_for(3 * test_timeout());
        return 4;
      }
      std::cout << "detected after " << s << " s: " << e.what() << std::endl;
      return 0;
    }
  }
  std::cout << "rank " << rank << " saw no failure" << std::endl;
  return 5;
}

}  // namespace

TEST(Collectives, All) { nabla::testing::check_all_collectives(*g_pg); }
TEST(DDP, SgdOnSharesEqualsOneProcessOnTheWholeBatch) { nabla::testing::check_ddp_sgd(g_pg); }
TEST(DDP, AdamOnSharesEqualsOneProcessOnTheWholeBatch) { nabla::testing::check_ddp_adam(g_pg); }
TEST(DDP, NoSyncAccumulationEqualsTheSummedBatch) { nabla::testing::check_ddp_no_sync(g_pg); }
TEST(DDP, FirstBucketStartsBeforeBackwardEnds) { nabla::testing::check_ddp_overlap(g_pg); }
TEST(DDP, BuffersAndParametersComeFromRankZero) { nabla::testing::check_ddp_buffers(g_pg); }
TEST(DDP, UnusedParameters) { nabla::testing::check_ddp_unused_parameters(g_pg); }

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string fault;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--fault=", 8) == 0) fault = argv[i] + 8;
  try {
    dist::InitOptions o;
    const char* backend = std::getenv("NABLA_TEST_BACKEND");
    o.backend = backend ? backend : "gloo";
    o.timeout = test_timeout();
    g_pg = dist::init_process_group(o);
  } catch (const nabla::Error& e) {
    std::cout << "init failed: " << e.what() << std::endl;
    return 2;
  }
  const int rc = fault.empty() ? RUN_ALL_TESTS() : run_fault(fault);
  if (fault.empty() && rc == 0) g_pg->barrier()->wait();  // nobody leaves while others work
  g_pg.reset();
  return rc;
}
