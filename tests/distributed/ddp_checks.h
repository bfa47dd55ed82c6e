#pragma once
// DistributedDataParallel's checks, run by distributed_worker on each rank.
#include <nabla/distributed.h>
#include <nabla/nabla.h>

namespace nabla::testing {

void check_ddp_sgd(std::shared_ptr<distributed::ProcessGroup> pg);
void check_ddp_adam(std::shared_ptr<distributed::ProcessGroup> pg);
void check_ddp_no_sync(std::shared_ptr<distributed::ProcessGroup> pg);
void check_ddp_overlap(std::shared_ptr<distributed::ProcessGroup> pg);
void check_ddp_buffers(std::shared_ptr<distributed::ProcessGroup> pg);
void check_ddp_unused_parameters(std::shared_ptr<distributed::ProcessGroup> pg);

}  // namespace nabla::testing
