// An exception thrown while making a batch reaches the loop at that batch, and the loader
// keeps working: the rest of the epoch and the next epoch deliver every other batch. As in
// LibTorch, without workers the exception arrives as it was thrown; from a worker thread
// it arrives as a data::WorkerException whose original_exception is the one thrown.
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

// True when `error` is an E, or a WorkerException wrapping an E.
template <class E>
bool is_failure(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const data::WorkerException& w) {
    return is_failure<E>(w.original_exception);
  } catch (const E&) {
    return true;
  } catch (...) {
    return false;
  }
}

// Runs one epoch; returns the first sample of each batch delivered, with -1 for a batch
// that raised `E` (the loop catches it and goes on with ++it, as LibTorch allows), and
// with -2 for one that raised anything else.
template <class E, class Loader>
std::vector<int> epoch(Loader& loader) {
  std::vector<int> firsts;
  for (auto it = loader.begin(); it != loader.end();) {
    firsts.push_back(static_cast<int>(it->front().data.template item<float>()));
    for (;;) {
      try {
        ++it;
        break;
      } catch (...) {
        firsts.push_back(is_failure<E>(std::current_exception()) ? -1 : -2);
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

// What the loop catches from a worker: the wrapper, saying where the error came from.
TEST(DataWorkerErrors, WorkerExceptionKeepsTheOriginalAndItsMessage) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Flaky(8, 0, false), data::DataLoaderOptions(4).workers(2));
  try {
    (void)*loader->begin();
    ADD_FAILURE() << "expected a WorkerException";
  } catch (const data::WorkerException& e) {
    EXPECT_STREQ(e.what(),
                 "Caught exception in DataLoader worker thread. Original message: sample 0 is "
                 "corrupt");
    EXPECT_THROW(std::rethrow_exception(e.original_exception), BadSample);
  }
  // Without workers the loop's thread made the batch: the exception is the original.
  auto inline_loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Flaky(8, 0, false), data::DataLoaderOptions(4));
  EXPECT_THROW((void)*inline_loader->begin(), BadSample);
}

}  // namespace

TEST(DataWorkerErrors, UserExceptionReachesTheLoopAndLoadingContinues) { check<BadSample>(false); }

TEST(DataWorkerErrors, NablaErrorReachesTheLoopAndLoadingContinues) { check<nabla::Error>(true); }
