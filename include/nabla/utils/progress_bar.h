#pragma once
// A tqdm-like progress bar for training loops:
//   nabla::utils::ProgressBar bar(steps, "epoch 1");
//   for (...) { ...; bar.set_postfix("loss=" + std::to_string(loss)); bar.update(); }
//   bar.close();
// On a terminal it redraws one line in place (percentage, bar, count, elapsed<remaining,
// rate, postfix), at most ten times a second. When the stream is not a terminal (logs,
// CI) it prints a plain line every 10% instead, so logs stay readable.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace nabla::utils {

class ProgressBar {
 public:
  /// Draws on stderr (in place when stderr is a terminal).
  explicit ProgressBar(int64_t total, std::string description = "");
  /// Draws on `out`; `interactive` selects in-place redrawing.
  ProgressBar(int64_t total, std::string description, std::ostream& out, bool interactive);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(int64_t steps = 1);
  void set_postfix(std::string postfix) { postfix_ = std::move(postfix); }
  void set_description(std::string description) { description_ = std::move(description); }
  /// Draws the final state and ends the line (idempotent; the destructor calls it).
  void close();
  /// The line as it would be drawn now (no trailing newline).
  std::string render() const;
  int64_t count() const noexcept { return count_; }

 private:
  void draw(bool force);
  using Clock = std::chrono::steady_clock;
  int64_t total_;
  std::string description_;
  std::string postfix_;
  std::ostream& out_;
  bool interactive_;
  int64_t count_ = 0;
  int last_decile_ = -1;
  bool closed_ = false;
  Clock::time_point start_, last_draw_;
};

}  // namespace nabla::utils
