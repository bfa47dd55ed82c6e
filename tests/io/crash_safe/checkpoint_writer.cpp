// The process test_crash_safe_save kills, fork/exec'd so a SIGKILL lands in a real
// process mid-save. Modes:
//   checkpoint_writer loop PATH N    resume from PATH if present, then train and save to
//                                    PATH N times (0: until killed); writes one byte to
//                                    stdout after the first save
//   checkpoint_writer fsize PATH B   save 64 KiB to PATH with files capped at B bytes
//                                    (RLIMIT_FSIZE, SIGXFSZ ignored: a full disk)
//   checkpoint_writer unprivileged PATH   save to PATH as user nobody when run as root
// The fsize and unprivileged modes print the nabla::Error they get and exit 0; exit 3
// means the save succeeded, 4 that something else was thrown.
#include <grp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "checkpoint_loop.h"

namespace {

int run_loop(const std::string& path, long saves) {
  crash_safe::Trainer trainer;
  if (::access(path.c_str(), F_OK) == 0) crash_safe::load_checkpoint(trainer, path);
  for (long i = 0; saves == 0 || i < saves; ++i) {
    crash_safe::train_step(trainer);
    crash_safe::checkpoint_of(trainer).save_to(path);
    if (i == 0) {
      const char ready = 'r';
      if (::write(STDOUT_FILENO, &ready, 1) != 1) return 5;
    }
  }
  return 0;
}

int save_expecting_error(const std::string& path) {
  try {
    nabla::save(nabla::arange(16384, nabla::kFloat), path);
  } catch (const nabla::Error& e) {
    std::cout << e.what() << std::flush;
    return 0;
  } catch (...) {
    return 4;
  }
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: checkpoint_writer loop|fsize|unprivileged PATH [ARG]\n";
    return 2;
  }
  const std::string mode = argv[1], path = argv[2];
  if (mode == "loop") return run_loop(path, argc > 3 ? std::atol(argv[3]) : 0);
  if (mode == "fsize" && argc > 3) {
    const rlim_t limit = std::strtoull(argv[3], nullptr, 10);
    const rlimit lim{limit, limit};
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return 6;
    std::signal(SIGXFSZ, SIG_IGN);  // write() then fails with EFBIG instead of killing us
    return save_expecting_error(path);
  }
  if (mode == "unprivileged") {
    // Root writes anywhere; become nobody so the directory's permissions apply.
    if (::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      return 6;
    return save_expecting_error(path);
  }
  std::cerr << "checkpoint_writer: unknown mode '" << mode << "'\n";
  return 2;
}
