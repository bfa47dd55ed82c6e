#pragma once
// RNN, LSTM, GRU and their cells, as torch::nn's: parameters weight_ih_l{k}[_reverse],
// weight_hh_l{k}[_reverse], bias_ih_l{k}[_reverse], bias_hh_l{k}[_reverse] (cells:
// weight_ih, weight_hh, bias_ih, bias_hh), all uniform in ±1/sqrt(hidden_size) as
// PyTorch's reset_parameters. forward calls nabla::lstm / gru / rnn_tanh / rnn_relu.
#include <tuple>
#include <variant>

#include "nabla/core/optional.h"
#include "nabla/nn/cloneable.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/options/arg.h"

namespace nabla::nn {

using rnn_nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;

struct RNNOptions {
  RNNOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NABLA_ARG(int64_t, input_size);
  NABLA_ARG(int64_t, hidden_size);
  NABLA_ARG(int64_t, num_layers) = 1;
  NABLA_ARG(rnn_nonlinearity_t, nonlinearity) = enumtype::kTanh{};
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(bool, batch_first) = false;
  NABLA_ARG(double, dropout) = 0.0;
  NABLA_ARG(bool, bidirectional) = false;
};

struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NABLA_ARG(int64_t, input_size);
  NABLA_ARG(int64_t, hidden_size);
  NABLA_ARG(int64_t, num_layers) = 1;
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(bool, batch_first) = false;
  NABLA_ARG(double, dropout) = 0.0;
  NABLA_ARG(bool, bidirectional) = false;
};

struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NABLA_ARG(int64_t, input_size);
  NABLA_ARG(int64_t, hidden_size);
  NABLA_ARG(int64_t, num_layers) = 1;
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(bool, batch_first) = false;
  NABLA_ARG(double, dropout) = 0.0;
  NABLA_ARG(bool, bidirectional) = false;
};

struct RNNCellOptions {
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NABLA_ARG(int64_t, input_size);
  NABLA_ARG(int64_t, hidden_size);
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(rnn_nonlinearity_t, nonlinearity) = enumtype::kTanh{};
};

struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NABLA_ARG(int64_t, input_size);
  NABLA_ARG(int64_t, hidden_size);
  NABLA_ARG(bool, bias) = true;
};

struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  NABLA_ARG(int64_t, input_size);
  NABLA_ARG(int64_t, hidden_size);
  NABLA_ARG(bool, bias) = true;
};

namespace detail {
/// What the three sequence modules share: parameter creation, naming, printing; derived
/// from Cloneable, so clone() deep-copies them.
template <class Derived>
class RNNImplBase : public Cloneable<Derived> {
 public:
  RNNImplBase(const char* kind, int64_t gates, int64_t input_size, int64_t hidden_size,
              int64_t num_layers, bool bias, bool batch_first, double dropout, bool bidirectional);
  /// Registers fresh parameters (uniform ±1/sqrt(hidden_size)).
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// The parameters in the flat order nabla::lstm / gru expect.
  std::vector<Tensor> flat_weights() const;

 protected:
  void create_parameters();
  const char* kind_;
  int64_t gates_, input_size_, hidden_size_, num_layers_;
  bool bias_, batch_first_;
  double dropout_;
  bool bidirectional_;
};
}  // namespace detail

class RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  /// (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  RNNOptions options;
};
NABLA_MODULE(RNN);

class LSTMImpl : public detail::RNNImplBase<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  /// (output, (h_n, c_n)).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, optional<std::tuple<Tensor, Tensor>> hx = nullopt);
  LSTMOptions options;
};
NABLA_MODULE(LSTM);

class GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  GRUOptions options;
};
NABLA_MODULE(GRU);

namespace detail {
template <class Derived>
class RNNCellImplBase : public Cloneable<Derived> {
 public:
  RNNCellImplBase(const char* kind, int64_t gates, int64_t input_size, int64_t hidden_size,
                  bool bias);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  /// hx, or zeros of the right shape when undefined.
  Tensor state_or_zeros(const Tensor& input, const Tensor& hx) const;
  const char* kind_;
  int64_t gates_, input_size_, hidden_size_;
  bool bias_;
};
}  // namespace detail

class RNNCellImpl : public detail::RNNCellImplBase<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});
  RNNCellOptions options;
};
NABLA_MODULE(RNNCell);

class LSTMCellImpl : public detail::RNNCellImplBase<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     optional<std::tuple<Tensor, Tensor>> hx = nullopt);
  LSTMCellOptions options;
};
NABLA_MODULE(LSTMCell);

class GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});
  GRUCellOptions options;
};
NABLA_MODULE(GRUCell);

}  // namespace nabla::nn
