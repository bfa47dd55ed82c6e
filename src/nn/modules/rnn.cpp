// RNN/LSTM/GRU modules and cells.
#include "nabla/nn/modules/rnn.h"

#include <cmath>
#include <ostream>
#include <type_traits>

#include "nabla/core/warning.h"
#include "nabla/nn/init.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/rnn.h"

namespace nabla::nn {

namespace {

// The parameters of one layer and direction (or of a cell), under names ending in
// `suffix`: weight_ih [gates * hidden, in], weight_hh [gates * hidden, state] (state: the
// size of h, hidden unless an LSTM projects it), and with
// `bias` bias_ih and bias_hh [gates * hidden]. Uninitialised (see init_uniform).
struct GateParams {
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
GateParams register_gate_params(Module& m, const std::string& suffix, int64_t gates, int64_t in,
                                int64_t hidden, int64_t state, bool bias) {
  GateParams g;
  g.weight_ih = m.register_parameter("weight_ih" + suffix, empty({gates * hidden, in}));
  g.weight_hh = m.register_parameter("weight_hh" + suffix, empty({gates * hidden, state}));
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
RNNImplBase<Derived>::RNNImplBase(const RNNOptionsBase& options) : options_base(options) {
  reset();
}

template <class Derived>
const char* RNNImplBase<Derived>::kind() const {
  return std::visit(
      [](auto mode) -> const char* {
        using M = decltype(mode);
        if constexpr (std::is_same_v<M, enumtype::kLSTM>) return "LSTM";
        if constexpr (std::is_same_v<M, enumtype::kGRU>) return "GRU";
        return "RNN";
      },
      options_base.mode());
}

template <class Derived>
int64_t RNNImplBase<Derived>::gates() const {
  if (std::holds_alternative<enumtype::kLSTM>(options_base.mode())) return 4;
  if (std::holds_alternative<enumtype::kGRU>(options_base.mode())) return 3;
  return 1;
}

template <class Derived>
int64_t RNNImplBase<Derived>::state_size() const {
  return options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
}

template <class Derived>
void RNNImplBase<Derived>::reset() {
  const RNNOptionsBase& o = options_base;
  const char* k = kind();
  NABLA_CHECK(o.input_size() > 0 && o.hidden_size() > 0 && o.num_layers() > 0, k,
              ": input_size, hidden_size and num_layers ", "must be positive, got ", o.input_size(),
              ", ", o.hidden_size(), ", ", o.num_layers());
  NABLA_CHECK(o.dropout() >= 0 && o.dropout() <= 1, k,
              ": dropout should be a number in range [0, 1] representing the probability of an "
              "element being zeroed, got ",
              o.dropout());
  if (o.dropout() > 0 && o.num_layers() == 1)
    NABLA_WARN(k,
               ": dropout option adds dropout after all but last recurrent layer, so non-zero "
               "dropout expects num_layers greater than 1, but got dropout=",
               o.dropout(), " and num_layers=", o.num_layers());
  NABLA_CHECK(o.proj_size() >= 0, k, ": proj_size has to be a positive integer, got ",
              o.proj_size());
  NABLA_CHECK(o.proj_size() == 0 || gates() == 4, k,
              ": proj_size argument is only supported for LSTM, not RNN or GRU");
  NABLA_CHECK(o.proj_size() < o.hidden_size(), k,
              ": proj_size has to be smaller than hidden_size, got proj_size=", o.proj_size(),
              " and hidden_size=", o.hidden_size());
  const int64_t dirs = o.bidirectional() ? 2 : 1, state = state_size();
  flat_weights_names_.clear();
  for (int64_t l = 0; l < o.num_layers(); ++l)
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string suffix = "_l" + std::to_string(l) + (d == 1 ? "_reverse" : "");
      const int64_t in = l == 0 ? o.input_size() : state * dirs;
      register_gate_params(*this, suffix, gates(), in, o.hidden_size(), state, o.bias());
      for (const char* name : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"})
        if (o.bias() || name[0] == 'w') flat_weights_names_.push_back(name + suffix);
      if (o.proj_size() > 0) {
        this->register_parameter("weight_hr" + suffix, empty({o.proj_size(), o.hidden_size()}));
        flat_weights_names_.push_back("weight_hr" + suffix);
      }
    }
  reset_parameters();
}

template <class Derived>
void RNNImplBase<Derived>::reset_parameters() {
  init_uniform(this->parameters(), options_base.hidden_size());
}

template <class Derived>
std::vector<Tensor> RNNImplBase<Derived>::all_weights() const {
  std::vector<Tensor> w;
  w.reserve(flat_weights_names_.size());
  for (const std::string& name : flat_weights_names_) w.push_back(this->parameters_[name]);
  return w;
}

template <class Derived>
Tensor RNNImplBase<Derived>::permute_hidden(const Tensor& hx, const Tensor& permutation) {
  if (!hx.defined() || !permutation.defined()) return hx;
  return hx.index_select(1, permutation.to(hx.device()));
}

template <class Derived>
void RNNImplBase<Derived>::pretty_print(std::ostream& stream) const {
  const RNNOptionsBase& o = options_base;
  stream << std::boolalpha << "nabla::nn::" << kind() << "(input_size=" << o.input_size()
         << ", hidden_size=" << o.hidden_size() << ", num_layers=" << o.num_layers()
         << ", bias=" << o.bias() << ", batch_first=" << o.batch_first()
         << ", dropout=" << o.dropout() << ", bidirectional=" << o.bidirectional();
  if (o.proj_size() > 0) stream << ", proj_size=" << o.proj_size();
  stream << ")";
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
  GateParams g =
      register_gate_params(*this, "", gates_, input_size_, hidden_size_, hidden_size_, bias_);
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
         << (bias_ ? "" : ", bias=false");
  if constexpr (std::is_same_v<Derived, RNNCellImpl>) {
    const auto& n = static_cast<const Derived*>(this)->options.nonlinearity();
    if (std::holds_alternative<enumtype::kReLU>(n)) stream << ", nonlinearity=kReLU";
  }
  stream << ")";
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

namespace {

detail::RNNOptionsBase base_options(detail::RNNOptionsBase::rnn_options_base_mode_t mode,
                                    int64_t input_size, int64_t hidden_size, int64_t num_layers,
                                    bool bias, bool batch_first, double dropout, bool bidirectional,
                                    int64_t proj_size = 0) {
  return detail::RNNOptionsBase(mode, input_size, hidden_size)
      .num_layers(num_layers)
      .bias(bias)
      .batch_first(batch_first)
      .dropout(dropout)
      .bidirectional(bidirectional)
      .proj_size(proj_size);
}

detail::RNNOptionsBase::rnn_options_base_mode_t rnn_mode(const rnn_nonlinearity_t& n) {
  if (std::holds_alternative<enumtype::kReLU>(n)) return enumtype::kRNN_RELU{};
  return enumtype::kRNN_TANH{};
}

using utils::rnn::PackedSequence;

// The packed output with the packing's indices; the state back in the caller's order.
PackedSequence repack(const PackedSequence& in, const Tensor& data) {
  return PackedSequence(data, in.batch_sizes(), in.sorted_indices(), in.unsorted_indices());
}

}  // namespace

RNNImpl::RNNImpl(const RNNOptions& o)
    : RNNImplBase(base_options(rnn_mode(o.nonlinearity()), o.input_size(), o.hidden_size(),
                               o.num_layers(), o.bias(), o.batch_first(), o.dropout(),
                               o.bidirectional())),
      options(o) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  const detail::RNNOptionsBase& o = options_base;
  if (std::holds_alternative<enumtype::kRNN_RELU>(o.mode()))
    return rnn_relu(input, hx, flat_weights(), o.bias(), o.num_layers(), o.dropout(), is_training(),
                    o.bidirectional(), o.batch_first());
  return rnn_tanh(input, hx, flat_weights(), o.bias(), o.num_layers(), o.dropout(), is_training(),
                  o.bidirectional(), o.batch_first());
}

std::tuple<PackedSequence, Tensor> RNNImpl::forward_with_packed_input(const PackedSequence& packed,
                                                                      Tensor hx) {
  const detail::RNNOptionsBase& o = options_base;
  const Tensor h0 = permute_hidden(hx, packed.sorted_indices());
  auto [out, h] = std::holds_alternative<enumtype::kRNN_RELU>(o.mode())
                      ? rnn_relu(packed.data(), packed.batch_sizes(), h0, flat_weights(), o.bias(),
                                 o.num_layers(), o.dropout(), is_training(), o.bidirectional())
                      : rnn_tanh(packed.data(), packed.batch_sizes(), h0, flat_weights(), o.bias(),
                                 o.num_layers(), o.dropout(), is_training(), o.bidirectional());
  return {repack(packed, out), permute_hidden(h, packed.unsorted_indices())};
}

LSTMImpl::LSTMImpl(const LSTMOptions& o)
    : RNNImplBase(base_options(enumtype::kLSTM{}, o.input_size(), o.hidden_size(), o.num_layers(),
                               o.bias(), o.batch_first(), o.dropout(), o.bidirectional(),
                               o.proj_size())),
      options(o) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, optional<std::tuple<Tensor, Tensor>> hx) {
  const detail::RNNOptionsBase& o = options_base;
  std::vector<Tensor> state;
  if (hx) state = {std::get<0>(*hx), std::get<1>(*hx)};
  auto [out, h, c] = lstm(input, state, flat_weights(), o.bias(), o.num_layers(), o.dropout(),
                          is_training(), o.bidirectional(), o.batch_first());
  return {out, {h, c}};
}

std::tuple<PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const PackedSequence& packed, optional<std::tuple<Tensor, Tensor>> hx) {
  const detail::RNNOptionsBase& o = options_base;
  std::vector<Tensor> state;
  if (hx)
    state = {permute_hidden(std::get<0>(*hx), packed.sorted_indices()),
             permute_hidden(std::get<1>(*hx), packed.sorted_indices())};
  auto [out, h, c] = lstm(packed.data(), packed.batch_sizes(), state, flat_weights(), o.bias(),
                          o.num_layers(), o.dropout(), is_training(), o.bidirectional());
  return {
      repack(packed, out),
      {permute_hidden(h, packed.unsorted_indices()), permute_hidden(c, packed.unsorted_indices())}};
}

GRUImpl::GRUImpl(const GRUOptions& o)
    : RNNImplBase(base_options(enumtype::kGRU{}, o.input_size(), o.hidden_size(), o.num_layers(),
                               o.bias(), o.batch_first(), o.dropout(), o.bidirectional())),
      options(o) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  const detail::RNNOptionsBase& o = options_base;
  return gru(input, hx, flat_weights(), o.bias(), o.num_layers(), o.dropout(), is_training(),
             o.bidirectional(), o.batch_first());
}

std::tuple<PackedSequence, Tensor> GRUImpl::forward_with_packed_input(const PackedSequence& packed,
                                                                      Tensor hx) {
  const detail::RNNOptionsBase& o = options_base;
  auto [out, h] =
      gru(packed.data(), packed.batch_sizes(), permute_hidden(hx, packed.sorted_indices()),
          flat_weights(), o.bias(), o.num_layers(), o.dropout(), is_training(), o.bidirectional());
  return {repack(packed, out), permute_hidden(h, packed.unsorted_indices())};
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
