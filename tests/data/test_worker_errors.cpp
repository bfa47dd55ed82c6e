// An exception thrown while a data loader worker makes a batch reaches the loop at that
// batch with its own type (as LibTorch's loader, which rethrows the worker's
// std::exception_ptr), and the loader keeps working: the rest of the epoch and the next
// epoch deliver every other batch.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include <nabla/nabla.h>

using nabla::Tensor;
namespace data = nabla::data;

namespace {

struct BadSample : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Sample i is the scalar i; sample `bad` throws (BadSample, or nabla::Error if `as_error`).
class Flaky : public data::datasets::Dataset<Flaky> {
 public:
  Flaky(size_t n, size_t bad, bool as_error) : n_(n), bad_(bad), as_error_(as_error) {}
  data::Example<> get(size_t index) override {
    if (index == bad_) {
      NABLA_CHECK(!as_error_, "Flaky: sample ", index, " is corrupt");
      throw BadSample("sample " + std::to_string(index) + " is corrupt");
    }
    Tensor v = nabla::full({1}, static_cast<double>(index));
    return {v, v};
  }
  nabla::optional<size_t> size() const override { return n_; }

 private:
  size_t n_, bad_;
  bool as_error_;
};

// Runs one epoch; returns the first sample of each batch delivered, with -1 for a batch
// that raised `E` (the loop catches it and goes on with ++it, as LibTorch allows).
template <class E, class Loader>
std::vector<int> epoch(Loader& loader) {
  std::vector<int> firsts;
  for (auto it = loader.begin(); it != loader.end();) {
    firsts.push_back(static_cast<int>(it->front().data.template item<float>()));
    for (;;) {
      try {
        ++it;
        break;
      } catch (const E&) {
        firsts.push_back(-1);
      }
    }
  }
  return firsts;
}

template <class E>
void check(bool as_error) {
  for (size_t workers : {0, 1, 2, 3}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Flaky(20, 9, as_error), data::DataLoaderOptions(4).workers(workers));
    // Batches start at 0, 4, 8 (holds sample 9: raises), 12, 16.
    const std::vector<int> want{0, 4, -1, 12, 16};
    EXPECT_EQ(epoch<E>(*loader), want);
    EXPECT_EQ(epoch<E>(*loader), want);  // a new epoch after the failure
  }
}

}  // namespace

TEST(DataWorkerErrors, UserExceptionReachesTheLoopAndLoadingContinues) { check<BadSample>(false); }

TEST(DataWorkerErrors, NablaErrorReachesTheLoopAndLoadingContinues) { check<nabla::Error>(true); }
