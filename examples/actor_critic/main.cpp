// Advantage actor-critic on CartPole. The environment is the
// classic-control cart-pole written out in C++ (Barto, Sutton & Anderson's equations,
// Euler steps of 20 ms, episodes capped at 200 steps, failure beyond 12 degrees or 2.4 m).
// The critic's value estimate enters the actor's loss through detach(): the advantage
// scales the policy gradient but is not itself trained by it. Solved when the average
// return over 100 consecutive episodes reaches 195.
//   actor_critic [--episodes N] [--seed N] [--no-target]
#include <nabla/nabla.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace nn = nabla::nn;
namespace F = nabla::nn::functional;
using nabla::Tensor;

class CartPole {
 public:
  explicit CartPole(uint64_t seed) : rng_(seed) {}
  std::vector<float> reset() {
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    s_ = {u(rng_), u(rng_), u(rng_), u(rng_)};
    steps_ = 0;
    return observation();
  }
  /// Applies a push left (0) or right (1); returns whether the episode ended.
  bool step(int action) {
    constexpr double g = 9.8, m_cart = 1.0, m_pole = 0.1, total = m_cart + m_pole, half_len = 0.5;
    constexpr double pole_ml = m_pole * half_len, force_mag = 10.0, tau = 0.02;
    auto& [x, x_dot, th, th_dot] = s_;
    const double force = action == 1 ? force_mag : -force_mag;
    const double c = std::cos(th), s = std::sin(th);
    const double temp = (force + pole_ml * th_dot * th_dot * s) / total;
    const double th_acc = (g * s - c * temp) / (half_len * (4.0 / 3.0 - m_pole * c * c / total));
    const double x_acc = temp - pole_ml * th_acc * c / total;
    x += tau * x_dot;
    x_dot += tau * x_acc;
    th += tau * th_dot;
    th_dot += tau * th_acc;
    ++steps_;
    return std::abs(x) > 2.4 || std::abs(th) > 12 * M_PI / 180 || steps_ >= 200;
  }
  std::vector<float> observation() const {
    return {static_cast<float>(s_[0]), static_cast<float>(s_[1]), static_cast<float>(s_[2]),
            static_cast<float>(s_[3])};
  }

 private:
  std::mt19937_64 rng_;
  std::array<double, 4> s_{};
  int steps_ = 0;
};

struct ActorCriticImpl : nn::Module {
  ActorCriticImpl()
      : body(register_module("body", nn::Linear(4, 128))),
        actor(register_module("actor", nn::Linear(128, 2))),
        critic(register_module("critic", nn::Linear(128, 1))) {}
  std::pair<Tensor, Tensor> forward(const Tensor& states) {
    auto h = nabla::relu(body(states));
    return {actor(h).log_softmax(-1), critic(h).squeeze(-1)};
  }
  nn::Linear body, actor, critic;
};
NABLA_MODULE(ActorCritic);

int main(int argc, char** argv) {
  int episodes = 2000;
  uint64_t seed = 1;
  bool require_target = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--episodes") && i + 1 < argc)
      episodes = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-target"))
      require_target = false;
  }
  nabla::manual_seed(seed);
  CartPole env(seed);
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  ActorCritic model;
  nabla::optim::Adam opt(model->parameters(), nabla::optim::AdamOptions(3e-3));
  constexpr double gamma = 0.99;
  std::deque<double> window;
  double window_sum = 0;
  for (int episode = 1; episode <= episodes; ++episode) {
    // Roll out one episode with the current policy (no graph needed while acting).
    std::vector<float> states;
    std::vector<int64_t> actions;
    auto obs = env.reset();
    bool done = false;
    while (!done) {
      int action;
      {
        nabla::NoGradGuard no_grad;
        auto [logp, value] = model(nabla::tensor(obs).view({1, 4}));
        action = uniform(rng) < std::exp(logp[0][0].item<float>()) ? 0 : 1;
      }
      states.insert(states.end(), obs.begin(), obs.end());
      actions.push_back(action);
      done = env.step(action);
      obs = env.observation();
    }
    const auto steps = static_cast<int64_t>(actions.size());
    // Discounted returns, then one batched forward/backward for the whole episode.
    std::vector<float> returns(static_cast<size_t>(steps));
    double g = 0;
    for (int64_t t = steps - 1; t >= 0; --t)
      returns[static_cast<size_t>(t)] = static_cast<float>(g = 1 + gamma * g);
    Tensor ret = nabla::tensor(returns);
    ret = (ret - ret.mean()) / (ret.std(true) + 1e-6);
    auto [logp, values] = model(nabla::tensor(states).view({steps, 4}));
    Tensor chosen =
        logp.gather(1, nabla::tensor(actions, nabla::kLong).view({steps, 1})).squeeze(1);
    Tensor advantage = (ret - values).detach();  // the critic's estimate as a baseline only
    Tensor loss = -(chosen * advantage).sum() +
                  F::smooth_l1_loss(values, ret, F::SmoothL1LossFuncOptions(nabla::kSum));
    opt.zero_grad();
    loss.backward();
    opt.step();

    window.push_back(static_cast<double>(steps));
    window_sum += static_cast<double>(steps);
    if (window.size() > 100) {
      window_sum -= window.front();
      window.pop_front();
    }
    const double average = window_sum / static_cast<double>(window.size());
    if (episode % 50 == 0 || episode == episodes)
      std::printf("episode %4d  return %3lld  average of last %zu: %.1f\n", episode,
                  static_cast<long long>(steps), window.size(), average);
    if (window.size() == 100 && average >= 195) {
      std::printf("solved after %d episodes: average return %.1f over the last 100\n", episode,
                  average);
      return 0;
    }
  }
  if (require_target) {
    std::fprintf(stderr, "actor_critic: not solved within %d episodes\n", episodes);
    return 1;
  }
  return 0;
}
