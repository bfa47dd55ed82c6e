#pragma once
// nabla::data: datasets, transforms, samplers and the data loader (torch::data).
#include "nabla/data/dataloader.h"
#include "nabla/data/dataloader_options.h"
#include "nabla/data/datasets.h"
#include "nabla/data/detail/data_shuttle.h"
#include "nabla/data/detail/queue.h"
#include "nabla/data/detail/sequencers.h"
#include "nabla/data/example.h"
#include "nabla/data/iterator.h"
#include "nabla/data/mnist.h"
#include "nabla/data/samplers.h"
#include "nabla/data/transforms.h"
#include "nabla/data/worker_exception.h"
