#pragma once
// The data loader, as torch::data's:
//   auto loader = data::make_data_loader(std::move(dataset),
//                                        data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { ... batch.data, batch.target ... }
// make_data_loader picks the loader by the dataset: a stateful dataset (optional batches)
// gets a StatefulDataLoader, any other a StatelessDataLoader with the sampler given (or a
// RandomSampler of the dataset's size). How epochs, workers, ordering and errors behave is
// described in nabla/data/dataloader/base.h.
#include <memory>
#include <type_traits>
#include <utility>

#include "nabla/core/error.h"
#include "nabla/data/dataloader/stateful.h"
#include "nabla/data/dataloader/stateless.h"
#include "nabla/data/dataloader_options.h"
#include "nabla/data/samplers.h"

namespace nabla::data {

/// A loader over `dataset` drawing requests from `sampler`. `options` has no default here,
/// as in LibTorch: make_data_loader(dataset, 64) must mean a batch size, not a sampler.
template <class Dataset, class Sampler>
requires(!Dataset::is_stateful)
    std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
        Dataset dataset, Sampler sampler, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

/// A loader over `dataset` with a sampler of its size (RandomSampler by default):
///   make_data_loader<samplers::SequentialSampler>(std::move(dataset), 64)
/// An unsized dataset raises nabla::Error: pass a sampler instead.
template <class Sampler = samplers::RandomSampler, class Dataset>
requires(!Dataset::is_stateful && std::is_constructible_v<Sampler, size_t>)
    std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
        Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const auto size = dataset.size();
  NABLA_CHECK(size.has_value(),
              "Expected the dataset to be sized in order to construct the Sampler "
              "(make_data_loader: the dataset's size() is nullopt; pass a sampler)");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

/// A loader over a stateful dataset: it asks for batch_size examples until nullopt.
template <class Dataset>
requires(Dataset::is_stateful) std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

}  // namespace nabla::data
