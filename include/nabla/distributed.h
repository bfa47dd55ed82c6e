#pragma once
// nabla's distributed training (docs/distributed.md): LibTorch's c10d under
// nabla::distributed (docs/compat.md: #include <c10d/...> → #include <nabla/distributed.h>,
// c10d:: → nabla::distributed::), and DistributedDataParallel.
#include "nabla/distributed/distributed_data_parallel.h"
#include "nabla/distributed/init.h"
#include "nabla/distributed/process_group.h"
#include "nabla/distributed/process_group_gloo.h"
#include "nabla/distributed/process_group_mpi.h"
#include "nabla/distributed/store.h"
#include "nabla/distributed/types.h"
#include "nabla/distributed/work.h"
