#pragma once
// Datasets, as torch::data::datasets: the base kinds and MapDataset (datasets/base.h),
// tensors in memory (datasets/tensor.h), shared handles (datasets/shared.h) and chunked
// data read by background threads (datasets/chunk.h). MNIST is in nabla/data/mnist.h.
#include "nabla/data/datasets/base.h"
#include "nabla/data/datasets/chunk.h"
#include "nabla/data/datasets/shared.h"
#include "nabla/data/datasets/tensor.h"
