// Crash-safe saves (docs/reliability.md): a writer SIGKILLed at random moments of its
// save loop never leaves a checkpoint that fails to load or differs from what its step
// saved; the temporary files killed writers leave are gone after the next save; a full
// disk or an unwritable directory is a nabla::Error naming the file and the cause, with
// the old file intact. The killed process is checkpoint_writer (fork/exec).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint_loop.h"

namespace fs = std::filesystem;

namespace {

// On tmpfs where there is one: fsync costs nothing there, and a SIGKILL (unlike a power
// cut) loses nothing the kernel already holds, so what is tested is the same.
fs::path base_dir() {
  if (::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path();
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir = base_dir() / ("nabla_crash_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  return dir;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Names in `dir` that look like the atomic writer's temporaries of `file`.
std::vector<std::string> temporaries(const fs::path& dir, const std::string& file) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(file + ".tmp.", 0) == 0) out.push_back(name);
  }
  return out;
}

struct Child {
  pid_t pid = -1;
  int out = -1;  // the child's stdout
};

Child spawn_writer(std::vector<std::string> args) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  args.insert(args.begin(), NABLA_CHECKPOINT_WRITER);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::dup2(fds[1], STDOUT_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

bool wait_for_byte(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  char c;
  return ::poll(&p, 1, timeout_ms) == 1 && ::read(fd, &c, 1) == 1;
}

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
  return s;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/// Runs a fsize/unprivileged writer to the end; returns its exit code and output.
std::pair<int, std::string> run_writer(std::vector<std::string> args) {
  Child c = spawn_writer(std::move(args));
  std::string out = read_all(c.out);
  ::close(c.out);
  return {wait_exit_code(c.pid), out};
}

/// What each step of the deterministic loop saved, computed here by running it again.
class Replay {
 public:
  const nabla::serialize::OutputArchive& at(int64_t step) {
    while (static_cast<int64_t>(saved_.size()) < step) {
      crash_safe::train_step(trainer_);
      saved_.push_back(crash_safe::checkpoint_of(trainer_));
    }
    return saved_[static_cast<size_t>(step - 1)];
  }

 private:
  crash_safe::Trainer trainer_;
  std::vector<nabla::serialize::OutputArchive> saved_;
};

/// `path` holds exactly `expected`'s tensors (same keys, dtypes, shapes and bytes).
void expect_file_holds(const std::string& path, const nabla::serialize::OutputArchive& expected) {
  nabla::serialize::InputArchive in;
  in.load_from(path);
  std::vector<std::string> keys;
  for (const auto& item : expected.tensors()) keys.push_back(item.key());
  ASSERT_EQ(in.keys(), keys);
  for (const auto& item : expected.tensors()) {
    nabla::Tensor got;
    in.read(item.key(), got);
    const nabla::Tensor& want = item.value();
    ASSERT_EQ(got.scalar_type(), want.scalar_type()) << item.key();
    ASSERT_EQ(got.sizes(), want.sizes()) << item.key();
    nabla::Tensor g = got.contiguous(), w = want.contiguous();
    EXPECT_EQ(std::memcmp(g.data_ptr(), w.data_ptr(), g.numel() * g.element_size()), 0)
        << "checkpoint entry '" << item.key() << "' differs from what was saved";
  }
}

int64_t step_in(const std::string& path) {
  nabla::serialize::InputArchive in;
  in.load_from(path);
  int64_t step = 0;
  in.read("step", step);
  return step;
}

}  // namespace

TEST(CrashSafeSave, SigkillAtRandomMomentsKeepsTheLastCheckpoint) {
  const fs::path dir = fresh_dir("kills");
  const std::string file = "ckpt.safetensors", path = (dir / file).string();
  constexpr int kKills = 200;
  constexpr int kMaxDelayUs = 2000;  // several saves: each takes ~0.1-0.5 ms on tmpfs
  std::mt19937 rng(20240614);
  std::uniform_int_distribution<int> delay_us(0, kMaxDelayUs);
  Replay replay;
  int64_t last_step = 0;
  int kills_leaving_temporary = 0;
  std::vector<std::string> stale;
  const auto start = std::chrono::steady_clock::now();
  for (int kill = 0; kill < kKills; ++kill) {
    Child c = spawn_writer({"loop", path, "0"});
    ASSERT_TRUE(wait_for_byte(c.out, 30000)) << "the writer never finished its first save";
    // Its first save removed what the previous killed writer left (Note [Stale temporaries]).
    for (const auto& name : stale)
      EXPECT_FALSE(fs::exists(dir / name)) << name << " survived the next successful save";
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    ::kill(c.pid, SIGKILL);
    EXPECT_EQ(wait_exit_code(c.pid), -SIGKILL);
    ::close(c.out);
    // The file is the checkpoint of the last save that completed: at least the one the
    // writer announced, and exactly what that step saved.
    const int64_t step = step_in(path);
    EXPECT_GT(step, last_step) << "kill " << kill;
    expect_file_holds(path, replay.at(step));
    if (::testing::Test::HasFailure()) FAIL() << "stopped at kill " << kill;
    last_step = step;
    stale = temporaries(dir, file);
    kills_leaving_temporary += stale.empty() ? 0 : 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A clean run afterwards: two more saves, and nothing but the checkpoint remains.
  Child c = spawn_writer({"loop", path, "2"});
  EXPECT_TRUE(wait_for_byte(c.out, 30000));
  ::close(c.out);
  EXPECT_EQ(wait_exit_code(c.pid), 0);
  expect_file_holds(path, replay.at(last_step + 2));
  EXPECT_TRUE(temporaries(dir, file).empty());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  std::cout << kKills << " kills in " << seconds << " s; " << last_step << " checkpoints saved; "
            << kills_leaving_temporary
            << " kills left a temporary file (removed by the next save)\n";
  fs::remove_all(dir);
}

TEST(CrashSafeSave, StaleTemporariesGoLockedOnesStay) {
  const fs::path dir = fresh_dir("stale");
  const std::string path = (dir / "m.safetensors").string();
  // One left by a dead writer (nobody holds it), one of a live writer (locked), and
  // names outside the writer's pattern.
  const std::string dead = path + ".tmp.AbC123", live = path + ".tmp.xYz789";
  const std::string other1 = path + ".tmp.toolong1", other2 = (dir / "n.safetensors.tmp.AbC123");
  for (const auto& name : {dead, live, other1, other2}) std::ofstream(name) << "partial";
  const int live_fd = ::open(live.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(live_fd, 0);
  ASSERT_EQ(::flock(live_fd, LOCK_EX), 0);
  nabla::save(nabla::ones({3}), path);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other1));
  EXPECT_TRUE(fs::exists(other2));
  ::close(live_fd);  // the live writer is gone: the next save takes its file
  nabla::save(nabla::ones({3}), path);
  EXPECT_FALSE(fs::exists(live));
  fs::remove_all(dir);
}

TEST(CrashSafeSave, FullDiskIsAClearErrorAndKeepsTheOldFile) {
  const fs::path dir = fresh_dir("fsize");
  const std::string path = (dir / "big.safetensors").string();
  nabla::save(nabla::ones({4}), path);
  const std::string before = read_bytes(path);
  // 64 KiB of data against a 4 KiB file size limit: write() fails with EFBIG part way.
  auto [code, message] = run_writer({"fsize", path, "4096"});
  ASSERT_EQ(code, 0) << "exit 3: the save succeeded; 4: not a nabla::Error";
  for (const char* part : {"save: cannot write '", "big.safetensors", "File too large",
                           "the previous file, if any, is unchanged"})
    EXPECT_NE(message.find(part), std::string::npos) << "lacks '" << part << "': " << message;
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_TRUE(temporaries(dir, "big.safetensors").empty());
  fs::remove_all(dir);
}

TEST(CrashSafeSave, UnwritableDirectoryIsAClearErrorAndKeepsTheOldFile) {
  const fs::path dir = fresh_dir("readonly");
  const std::string path = (dir / "m.safetensors").string();
  nabla::save(nabla::ones({4}), path);
  const std::string before = read_bytes(path);
  fs::permissions(dir, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  // The writer drops root's privileges first (CI runs as root).
  auto [code, message] = run_writer({"unprivileged", path});
  fs::permissions(dir, fs::perms::owner_write, fs::perm_options::add);
  ASSERT_EQ(code, 0) << "exit 3: the save succeeded; 4: not a nabla::Error; 6: setuid failed";
  for (const char* part : {"save: cannot create a temporary file next to '", path.c_str(),
                           "Permission denied", "the previous file, if any, is unchanged"})
    EXPECT_NE(message.find(part), std::string::npos) << "lacks '" << part << "': " << message;
  EXPECT_EQ(read_bytes(path), before);
  fs::remove_all(dir);
}
