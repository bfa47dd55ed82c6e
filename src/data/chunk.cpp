// ChunkDatasetOptions: the checks of the chunk dataset's options.
#include "nabla/data/datasets/chunk.h"

namespace nabla::data::datasets {

ChunkDatasetOptions::ChunkDatasetOptions(size_t preloader_count, size_t batch_size,
                                         size_t cache_size, size_t cross_chunk_shuffle_count)
    : preloader_count_(preloader_count),
      batch_size_(batch_size),
      cache_size_(cache_size),
      cross_chunk_shuffle_count_(cross_chunk_shuffle_count) {
  validate();
}

// The messages are LibTorch's, word for word: ported programs may look for them.
void ChunkDatasetOptions::validate() const {
  NABLA_CHECK(preloader_count_ > 0,
              "Preloader count is 0. At least one preloader needs to be specified.");
  NABLA_CHECK(batch_size_ > 0, "Batch size is 0. A positive batch size needs to be specified.");
  NABLA_CHECK(cache_size_ > 0, "Cache size is 0. A positive cache size needs to be specified.");
  NABLA_CHECK(cache_size_ >= batch_size_,
              "Cache size is less than batch size. Cache needs to be large enough to hold at "
              "least one batch. Got cache_size ",
              cache_size_, " and batch_size ", batch_size_, ".");
  NABLA_CHECK(cross_chunk_shuffle_count_ > 0,
              "cross_chunk_shuffle_count needs to be greater than 0.");
}

}  // namespace nabla::data::datasets
