// RNN/LSTM/GRU modules and cells.
#include "nabla/nn/modules/rnn.h"

#include <cmath>
#include <ostream>

#include "nabla/nn/init.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/rnn.h"

namespace nabla::nn {

namespace {

// The parameters of one layer and direction (or of a cell), under names ending in
// `suffix`: weight_ih [gates * hidden, in], weight_hh [gates * hidden, hidden], and with
// `bias` bias_ih and bias_hh [gates * hidden]. Uninitialised (see init_uniform).
struct GateParams {
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
GateParams register_gate_params(Module& m, const std::string& suffix, int64_t gates, int64_t in,
                                int64_t hidden, bool bias) {
  GateParams g;
  g.weight_ih = m.register_parameter("weight_ih" + suffix, empty({gates * hidden, in}));
  g.weight_hh = m.register_parameter("weight_hh" + suffix, empty({gates * hidden, hidden}));
  if (bias) {
    g.bias_ih = m.register_parameter("bias_ih" + suffix, empty({gates * hidden}));
    g.bias_hh = m.register_parameter("bias_hh" + suffix, empty({gates * hidden}));
  }
  return g;
}

// PyTorch's reset_parameters of every recurrent module: all uniform in ±1/sqrt(hidden).
void init_uniform(const std::vector<Tensor>& parameters, int64_t hidden) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  for (const Tensor& p : parameters) init::uniform_(p, -bound, bound);
}

}  // namespace

namespace detail {

template <class Derived>
RNNImplBase<Derived>::RNNImplBase(const char* kind, int64_t gates, int64_t input_size,
                                  int64_t hidden_size, int64_t num_layers, bool bias,
                                  bool batch_first, double dropout, bool bidirectional)
    : kind_(kind),
      gates_(gates),
      input_size_(input_size),
      hidden_size_(hidden_size),
      num_layers_(num_layers),
      bias_(bias),
      batch_first_(batch_first),
      dropout_(dropout),
      bidirectional_(bidirectional) {
  NABLA_CHECK(input_size > 0 && hidden_size > 0 && num_layers > 0, kind,
              ": input_size, hidden_size and num_layers ", "must be positive, got ", input_size,
              ", ", hidden_size, ", ", num_layers);
  NABLA_CHECK(dropout >= 0 && dropout <= 1, kind, ": dropout must be in [0, 1], got ", dropout);
  create_parameters();
}

template <class Derived>
void RNNImplBase<Derived>::reset() {
  create_parameters();
}

template <class Derived>
void RNNImplBase<Derived>::create_parameters() {
  const int64_t dirs = bidirectional_ ? 2 : 1;
  for (int64_t l = 0; l < num_layers_; ++l)
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string suffix = "_l" + std::to_string(l) + (d == 1 ? "_reverse" : "");
      const int64_t in = l == 0 ? input_size_ : hidden_size_ * dirs;
      register_gate_params(*this, suffix, gates_, in, hidden_size_, bias_);
    }
  reset_parameters();
}

template <class Derived>
void RNNImplBase<Derived>::reset_parameters() {
  init_uniform(this->parameters(), hidden_size_);
}

template <class Derived>
std::vector<Tensor> RNNImplBase<Derived>::flat_weights() const {
  return this->parameters_.values();
}

template <class Derived>
void RNNImplBase<Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::" << kind_ << "(input_size=" << input_size_
         << ", hidden_size=" << hidden_size_ << ", num_layers=" << num_layers_ << ", bias=" << bias_
         << ", batch_first=" << batch_first_ << ", dropout=" << dropout_
         << ", bidirectional=" << bidirectional_ << ")";
}

template <class Derived>
RNNCellImplBase<Derived>::RNNCellImplBase(const char* kind, int64_t gates, int64_t input_size,
                                          int64_t hidden_size, bool bias)
    : kind_(kind), gates_(gates), input_size_(input_size), hidden_size_(hidden_size), bias_(bias) {
  NABLA_CHECK(input_size > 0 && hidden_size > 0, kind,
              ": input_size and hidden_size must be positive");
  reset();
}

template <class Derived>
void RNNCellImplBase<Derived>::reset() {
  GateParams g = register_gate_params(*this, "", gates_, input_size_, hidden_size_, bias_);
  weight_ih = g.weight_ih;
  weight_hh = g.weight_hh;
  bias_ih = g.bias_ih;
  bias_hh = g.bias_hh;
  reset_parameters();
}

template <class Derived>
void RNNCellImplBase<Derived>::reset_parameters() {
  init_uniform(this->parameters(), hidden_size_);
}

template <class Derived>
void RNNCellImplBase<Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "nabla::nn::" << kind_ << "(" << input_size_ << ", " << hidden_size_
         << (bias_ ? "" : ", bias=false") << ")";
}

template <class Derived>
Tensor RNNCellImplBase<Derived>::state_or_zeros(const Tensor& input, const Tensor& hx) const {
  if (hx.defined()) return hx;
  NABLA_CHECK(input.defined() && (input.dim() == 1 || input.dim() == 2), kind_,
              ": input must be 1-d or 2-d, got ", input.defined() ? input.dim() : 0, " dims");
  return input.dim() == 1 ? zeros({hidden_size_}, input.options())
                          : zeros({input.size(0), hidden_size_}, input.options());
}

template class RNNImplBase<RNNImpl>;
template class RNNImplBase<LSTMImpl>;
template class RNNImplBase<GRUImpl>;
template class RNNCellImplBase<RNNCellImpl>;
template class RNNCellImplBase<LSTMCellImpl>;
template class RNNCellImplBase<GRUCellImpl>;

}  // namespace detail

RNNImpl::RNNImpl(const RNNOptions& o)
    : RNNImplBase("RNN", 1, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
                  o.batch_first(), o.dropout(), o.bidirectional()),
      options(o) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  const auto w = flat_weights();
  if (std::holds_alternative<enumtype::kReLU>(options.nonlinearity()))
    return rnn_relu(input, hx, w, bias_, num_layers_, dropout_, is_training(), bidirectional_,
                    batch_first_);
  return rnn_tanh(input, hx, w, bias_, num_layers_, dropout_, is_training(), bidirectional_,
                  batch_first_);
}

LSTMImpl::LSTMImpl(const LSTMOptions& o)
    : RNNImplBase("LSTM", 4, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
                  o.batch_first(), o.dropout(), o.bidirectional()),
      options(o) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, optional<std::tuple<Tensor, Tensor>> hx) {
  std::vector<Tensor> state;
  if (hx) state = {std::get<0>(*hx), std::get<1>(*hx)};
  auto [out, h, c] = lstm(input, state, flat_weights(), bias_, num_layers_, dropout_, is_training(),
                          bidirectional_, batch_first_);
  return {out, {h, c}};
}

GRUImpl::GRUImpl(const GRUOptions& o)
    : RNNImplBase("GRU", 3, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
                  o.batch_first(), o.dropout(), o.bidirectional()),
      options(o) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  return gru(input, hx, flat_weights(), bias_, num_layers_, dropout_, is_training(), bidirectional_,
             batch_first_);
}

RNNCellImpl::RNNCellImpl(const RNNCellOptions& o)
    : RNNCellImplBase("RNNCell", 1, o.input_size(), o.hidden_size(), o.bias()), options(o) {}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  Tensor h = state_or_zeros(input, hx);
  if (std::holds_alternative<enumtype::kReLU>(options.nonlinearity()))
    return rnn_relu_cell(input, h, weight_ih, weight_hh, bias_ih, bias_hh);
  return rnn_tanh_cell(input, h, weight_ih, weight_hh, bias_ih, bias_hh);
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& o)
    : RNNCellImplBase("LSTMCell", 4, o.input_size(), o.hidden_size(), o.bias()), options(o) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 optional<std::tuple<Tensor, Tensor>> hx) {
  Tensor h = hx ? std::get<0>(*hx) : state_or_zeros(input, {});
  Tensor c = hx ? std::get<1>(*hx) : state_or_zeros(input, {});
  return lstm_cell(input, std::vector<Tensor>{h, c}, weight_ih, weight_hh, bias_ih, bias_hh);
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& o)
    : RNNCellImplBase("GRUCell", 3, o.input_size(), o.hidden_size(), o.bias()), options(o) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  return gru_cell(input, state_or_zeros(input, hx), weight_ih, weight_hh, bias_ih, bias_hh);
}

}  // namespace nabla::nn
