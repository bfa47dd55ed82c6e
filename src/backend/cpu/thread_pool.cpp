// A persistent pool for parallel_for. Workers sleep on a condition variable between
// jobs after a short bounded spin, so a busy machine (another process on a core) never
// sees threads burning time waiting for each other (bench/README.md contention rule).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "nabla/backend/parallel.h"
#include "nabla/core/error.h"

#if __has_include(NABLA_CBLAS_HEADER)
#include NABLA_CBLAS_HEADER
#define NABLA_HAVE_OPENBLAS_THREADS 1
#endif

namespace nabla {
namespace {

thread_local bool t_in_parallel = false;

// How long an idle worker spins before it sleeps.
constexpr std::chrono::microseconds kSpin{200};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// One parallel_for call. Lives on the caller's stack; workers that joined it are
// counted in `active`, and the caller returns only after they all left.
struct Job {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t end, chunk;
  std::atomic<int64_t> next;
  std::atomic<int64_t> pending;
  std::atomic<int> active{0};
  std::mutex error_mutex;
  std::exception_ptr error;

  // Takes chunks until none are left.
  void work() {
    bool was = t_in_parallel;
    t_in_parallel = true;
    for (;;) {
      int64_t b = next.fetch_add(chunk, std::memory_order_relaxed);
      if (b >= end) break;
      try {
        (*fn)(b, std::min(end, b + chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mutex);
        if (!error) error = std::current_exception();
      }
      pending.fetch_sub(1, std::memory_order_acq_rel);
    }
    t_in_parallel = was;
  }
  bool finished() const {
    return pending.load(std::memory_order_acquire) == 0 &&
           active.load(std::memory_order_acquire) == 0;
  }
};

class ThreadPool {
 public:
  static ThreadPool& instance() {
    static ThreadPool pool;
    return pool;
  }

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }

  void set_num_threads(int n) {
    std::lock_guard<std::mutex> run(run_mutex_);
    stop_workers();
    num_threads_ = n;
    start_workers(n - 1);
  }

  void run(int64_t begin, int64_t end, int64_t chunk,
           const std::function<void(int64_t, int64_t)>& fn) {
    std::lock_guard<std::mutex> run(run_mutex_);  // one job at a time
    Job job;
    job.fn = &fn;
    job.end = end;
    job.chunk = chunk;
    job.next.store(begin, std::memory_order_relaxed);
    job.pending.store((end - begin + chunk - 1) / chunk, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lk(mutex_);
      job_ = &job;
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    job.work();
    {
      std::lock_guard<std::mutex> lk(mutex_);
      job_ = nullptr;  // no new joiners from here on
    }
    // Wait for the workers still inside: spin briefly, then sleep.
    for (int spin = 0; !job.finished(); ++spin) {
      if (spin < 4000) {
        cpu_relax();
      } else {
        std::unique_lock<std::mutex> lk(mutex_);
        done_cv_.wait(lk, [&] { return job.finished(); });
      }
    }
    if (job.error) std::rethrow_exception(job.error);
  }

  ~ThreadPool() { stop_workers(); }

 private:
  ThreadPool() {
#ifdef NABLA_HAVE_OPENBLAS_THREADS
    // OpenBLAS (float64 products, matrix-vector) runs in the caller's thread: its idle
    // server threads yield-spin long after each call, taking the cores from this pool.
    openblas_set_num_threads(1);
#endif
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    num_threads_ = static_cast<int>(hw);
    start_workers(static_cast<int>(hw) - 1);
  }

  void worker_loop() {
    uint64_t seen = generation_.load(std::memory_order_acquire);
    for (;;) {
      // Spin for back-to-back jobs, at most kSpin, then sleep until the next one: waking a
      // sleeping worker (a futex and an interrupt, costly in a VM) took W2's step at 2
      // threads from 0.95-1.17 ms to 1.35 with a ~50 us spin.
      const auto deadline = std::chrono::steady_clock::now() + kSpin;
      for (int spin = 0;; ++spin) {
        if (generation_.load(std::memory_order_acquire) != seen ||
            stopping_.load(std::memory_order_relaxed))
          break;
        cpu_relax();
        if ((spin & 63) == 63 && std::chrono::steady_clock::now() > deadline) break;
      }
      Job* job;
      {
        std::unique_lock<std::mutex> lk(mutex_);
        cv_.wait(lk, [&] {
          return stopping_.load(std::memory_order_relaxed) ||
                 generation_.load(std::memory_order_relaxed) != seen;
        });
        if (stopping_) return;
        seen = generation_.load(std::memory_order_relaxed);
        job = job_;
        if (!job) continue;
        job->active.fetch_add(1, std::memory_order_acq_rel);
      }
      job->work();
      std::lock_guard<std::mutex> lk(mutex_);
      job->active.fetch_sub(1, std::memory_order_acq_rel);
      done_cv_.notify_all();
    }
  }

  void start_workers(int n) {
    stopping_ = false;
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { worker_loop(); });
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lk(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  std::atomic<int> num_threads_{1};
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> generation_{0};
  Job* job_ = nullptr;
};

}  // namespace

void set_num_threads(int n) {
  NABLA_CHECK(n >= 1, "set_num_threads: expected a positive number of threads, got ", n);
  ThreadPool::instance().set_num_threads(n);
}

int get_num_threads() { return ThreadPool::instance().num_threads(); }

void init_num_threads() { (void)ThreadPool::instance(); }

namespace {
std::atomic<int> g_interop_threads{0};  // 0: not set, report the hardware's count
}  // namespace

void set_num_interop_threads(int n) {
  NABLA_CHECK(n >= 1, "set_num_interop_threads: expected a positive number of threads, got ", n);
  g_interop_threads.store(n);
}

int get_num_interop_threads() {
  const int n = g_interop_threads.load();
  return n > 0 ? n : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

bool in_parallel_region() { return t_in_parallel; }

void detail::parallel_for_threads(int64_t begin, int64_t end, int64_t grain_size,
                                  const std::function<void(int64_t, int64_t)>& fn) {
  if (begin >= end) return;
  int64_t n = end - begin;
  grain_size = std::max<int64_t>(grain_size, 1);
  int threads = t_in_parallel ? 1 : get_num_threads();
  if (threads <= 1 || n < 2 * grain_size) {
    fn(begin, end);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads, n / grain_size);
  int64_t chunk = (n + chunks - 1) / chunks;
  ThreadPool::instance().run(begin, end, chunk, fn);
}

}  // namespace nabla
