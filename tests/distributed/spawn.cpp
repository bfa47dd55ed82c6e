#include "distributed/spawn.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace nabla::testing {

std::vector<ProcessResult> run_processes(const std::vector<ProcessSpec>& specs,
                                         std::chrono::seconds limit) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() /
      ("nabla_spawn_" + std::to_string(::getpid()) + "_" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  fs::create_directories(dir);
  const auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> pids;
  std::vector<ProcessResult> results(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    // Everything the child needs is made before fork: it only redirects and execs.
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      if (!specs[i].env.count(kv.substr(0, kv.find('=')))) env_text.push_back(kv);
    }
    for (const auto& [k, v] : specs[i].env) env_text.push_back(k + "=" + v);
    std::vector<char*> envp, argv;
    for (auto& s : env_text) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = specs[i].argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    const std::string out = (dir / ("rank" + std::to_string(i) + ".log")).string();
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("run_processes: cannot create " + out);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(fd);
    if (pid < 0) throw std::runtime_error("run_processes: fork failed");
    pids.push_back(pid);
  }
  size_t running = pids.size();
  while (running > 0) {
    const bool over = std::chrono::steady_clock::now() - start > limit;
    for (size_t i = 0; i < pids.size(); ++i) {
      if (pids[i] == 0) continue;
      if (over) {
        ::kill(pids[i], SIGKILL);
        results[i].timed_out = true;
      }
      int status = 0;
      if (::waitpid(pids[i], &status, over ? 0 : WNOHANG) != pids[i]) continue;
      results[i].seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (WIFEXITED(status)) results[i].exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) results[i].signal = WTERMSIG(status);
      pids[i] = 0;
      --running;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    std::ifstream in(dir / ("rank" + std::to_string(i) + ".log"));
    std::stringstream ss;
    ss << in.rdbuf();
    results[i].output = ss.str();
  }
  fs::remove_all(dir);
  return results;
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace nabla::testing
