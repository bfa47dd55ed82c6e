#pragma once
// RNN, LSTM, GRU and their cells, as torch::nn's: parameters weight_ih_l{k}[_reverse],
// weight_hh_l{k}[_reverse], bias_ih_l{k}[_reverse], bias_hh_l{k}[_reverse] (cells:
// weight_ih, weight_hh, bias_ih, bias_hh), all uniform in ±1/sqrt(hidden_size) as
// PyTorch's reset_parameters (LSTM with proj_size: weight_hr_l{k}[_reverse] too).
// forward calls nabla::lstm / gru / rnn_tanh / rnn_relu; forward_with_packed_input their
// packed forms.
#include <tuple>
#include <variant>

#include "nabla/core/optional.h"
#include "nabla/nn/cloneable.h"
#include "nabla/nn/enum.h"
#include "nabla/nn/modules/container/any.h"
#include "nabla/nn/options/arg.h"
#include "nabla/nn/utils/rnn.h"

namespace nabla::nn {

using rnn_nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;

struct RNNOptions {
  using nonlinearity_t = rnn_nonlinearity_t;
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
  /// > 0: h is projected to this size by weight_hr_l{k} [proj_size, hidden_size].
  NABLA_ARG(int64_t, proj_size) = 0;
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
  using nonlinearity_t = rnn_nonlinearity_t;
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
/// The options every sequence module keeps as `options_base` (torch::nn::detail's).
struct RNNOptionsBase {
  using rnn_options_base_mode_t =
      std::variant<enumtype::kLSTM, enumtype::kGRU, enumtype::kRNN_TANH, enumtype::kRNN_RELU>;
  RNNOptionsBase(rnn_options_base_mode_t mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  NABLA_ARG(rnn_options_base_mode_t, mode);
  NABLA_ARG(int64_t, input_size);
  NABLA_ARG(int64_t, hidden_size);
  NABLA_ARG(int64_t, num_layers) = 1;
  NABLA_ARG(bool, bias) = true;
  NABLA_ARG(bool, batch_first) = false;
  NABLA_ARG(double, dropout) = 0.0;
  NABLA_ARG(bool, bidirectional) = false;
  NABLA_ARG(int64_t, proj_size) = 0;
};

/// What the three sequence modules share: parameter creation, naming, printing; derived
/// from Cloneable, so clone() deep-copies them.
template <class Derived>
class RNNImplBase : public Cloneable<Derived> {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options);
  /// Registers fresh parameters (uniform ±1/sqrt(hidden_size)).
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// Does nothing: nabla's kernels read the parameters where they are (LibTorch packs
  /// them into one buffer for cuDNN here).
  void flatten_parameters() {}
  /// The parameters in the flat order nabla::lstm / gru expect: per layer and direction
  /// weight_ih, weight_hh, bias_ih, bias_hh, weight_hr.
  std::vector<Tensor> all_weights() const;
  RNNOptionsBase options_base;

 protected:
  std::vector<Tensor> flat_weights() const { return all_weights(); }
  /// The state size of h: proj_size, or hidden_size without projections.
  int64_t state_size() const;
  /// `hx` in the order of a packed batch's sequences, as forward_with_packed_input takes it.
  static Tensor permute_hidden(const Tensor& hx, const Tensor& permutation);
  std::vector<std::string> flat_weights_names_;

 private:
  const char* kind() const;
  int64_t gates() const;
};
}  // namespace detail

class RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  /// (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  /// (packed output, h_n), h_n in the caller's batch order.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  RNNOptions options;

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
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
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input,
      optional<std::tuple<Tensor, Tensor>> hx = nullopt);
  LSTMOptions options;

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(optional<std::tuple<Tensor, Tensor>>())})
};
NABLA_MODULE(LSTM);

class GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  GRUOptions options;

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
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

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
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

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(optional<std::tuple<Tensor, Tensor>>())})
};
NABLA_MODULE(LSTMCell);

class GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});
  GRUCellOptions options;

 protected:
  NABLA_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
};
NABLA_MODULE(GRUCell);

}  // namespace nabla::nn
