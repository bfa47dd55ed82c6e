// The progress bar.
#include "nabla/utils/progress_bar.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

namespace nabla::utils {

namespace {

std::string clock_text(double seconds) {
  if (!(seconds >= 0) || seconds > 359999) return "--:--";
  const auto s = static_cast<int64_t>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(int64_t total, std::string description)
    : ProgressBar(total, std::move(description), std::cerr, ::isatty(STDERR_FILENO) == 1) {}

ProgressBar::ProgressBar(int64_t total, std::string description, std::ostream& out,
                         bool interactive)
    : total_(total),
      description_(std::move(description)),
      out_(out),
      interactive_(interactive),
      start_(Clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() { close(); }

std::string ProgressBar::render() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(count_) / elapsed : 0;
  std::ostringstream os;
  if (!description_.empty()) os << description_ << " ";
  if (total_ > 0) {
    const double frac = std::min(1.0, static_cast<double>(count_) / static_cast<double>(total_));
    char pct[8];
    std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(frac * 100));
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(frac * kWidth);
    os << pct << " |" << std::string(static_cast<size_t>(filled), '#')
       << std::string(static_cast<size_t>(kWidth - filled), ' ') << "| " << count_ << "/" << total_;
    const double remaining = rate > 0 ? static_cast<double>(total_ - count_) / rate : -1;
    os << " [" << clock_text(elapsed) << "<" << clock_text(remaining);
  } else {
    os << count_ << " [" << clock_text(elapsed);
  }
  char r[32];
  std::snprintf(r, sizeof r, ", %.1f it/s", rate);
  os << r;
  if (!postfix_.empty()) os << ", " << postfix_;
  os << "]";
  return os.str();
}

void ProgressBar::draw(bool force) {
  const auto now = Clock::now();
  if (interactive_) {
    if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
    out_ << "\r" << render() << "\033[K" << std::flush;
  } else {
    const int decile = total_ > 0 ? static_cast<int>(10 * count_ / total_) : -1;
    if (!force && (total_ <= 0 || decile == last_decile_)) return;
    last_decile_ = decile;
    out_ << render() << "\n" << std::flush;
  }
  last_draw_ = now;
}

void ProgressBar::update(int64_t steps) {
  if (closed_) return;
  count_ += steps;
  draw(false);
}

void ProgressBar::close() {
  if (closed_) return;
  closed_ = true;
  if (interactive_) {
    draw(true);
    out_ << "\n" << std::flush;
  } else if (last_decile_ != (total_ > 0 ? static_cast<int>(10 * count_ / total_) : -1) ||
             total_ <= 0) {
    draw(true);
  }
}

}  // namespace nabla::utils
