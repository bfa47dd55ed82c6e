// nn::utils::rnn: packing and padding variable-length sequences (nabla/nn/utils/rnn.h).
// Built from differentiable ops (narrow, cat, stack, index_select), so gradients reach
// the padded or listed inputs with no backward of their own.
#include <algorithm>
#include <vector>

#include "nabla/nn/utils/rnn.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::nn::utils::rnn {
namespace {

// `t` ([L, *]) followed by `extra` steps of `value` along dim 0.
Tensor pad_steps(const Tensor& t, int64_t extra, double value) {
  if (extra == 0) return t;
  std::vector<int64_t> sizes = t.sizes().vec();
  sizes[0] = extra;
  return cat({t, full(sizes, value, t.options())}, 0);
}

// The lengths as host int64 values, checked 1-d.
std::vector<int64_t> lengths_of(const Tensor& lengths, const char* op) {
  NABLA_CHECK(lengths.defined() && lengths.dim() == 1, op,
              ": expected `lengths` to be a 1-D tensor, got ",
              lengths.defined() ? str(lengths.dim(), "-D") : std::string("undefined"));
  const Tensor l = lengths.to(kCPU, kLong).contiguous();
  const int64_t* p = l.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + l.numel());
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return {};
  Tensor out = empty_like(permutation);
  out.scatter_(0, permutation, arange(permutation.numel(), permutation.options().dtype(kLong)));
  return out;
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(unsorted_indices.defined() ? std::move(unsorted_indices)
                                                   : invert_permutation(sorted_indices_)) {}

PackedSequence PackedSequence::to(TensorOptions options) const {
  Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  auto move = [&](const Tensor& t) { return t.defined() ? t.to(data.device()) : t; };
  return PackedSequence(data, batch_sizes_, move(sorted_indices_), move(unsorted_indices_));
}

PackedSequence PackedSequence::cuda() const { return to(Device(kCUDA)); }
PackedSequence PackedSequence::cpu() const { return to(Device(kCPU)); }

PackedSequence PackedSequence::pin_memory() const {
  auto pin = [](const Tensor& t) { return t.defined() ? t.pin_memory() : t; };
  return PackedSequence(data_.pin_memory(), batch_sizes_, pin(sorted_indices_),
                        pin(unsorted_indices_));
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first,
                                    bool enforce_sorted) {
  const char* op = "pack_padded_sequence";
  NABLA_CHECK(input.defined(), op, ": the input is undefined");
  NABLA_CHECK(input.numel() > 0, op, ": Cannot pack empty tensors (got an empty tensor of sizes ",
              input.sizes(), ")");
  NABLA_CHECK(input.dim() >= 2, op, ": expected the input to be at least 2-D ([T, B, *]), got ",
              input.sizes());
  std::vector<int64_t> len = lengths_of(lengths, op);
  Tensor sorted_indices;
  if (enforce_sorted) {
    NABLA_CHECK(std::is_sorted(len.rbegin(), len.rend()), op,
                ": `lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "true, got ",
                lengths.to(kCPU).reshape({-1}).sizes(), " values starting ", len.front(),
                ". You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement");
  } else {
    std::vector<int64_t> order(len.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return len[a] > len[b]; });
    std::vector<int64_t> sorted(len.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = len[order[i]];
    len = sorted;
    sorted_indices = tensor(order, TensorOptions(kLong).device(input.device()));
    input = input.index_select(batch_first ? 0 : 1, sorted_indices);
  }
  if (batch_first) input = input.transpose(0, 1);
  const int64_t steps = input.size(0), batch = input.size(1);
  NABLA_CHECK(static_cast<int64_t>(len.size()) == batch, op, ": expected ", batch,
              " lengths (the batch size), got ", len.size());
  NABLA_CHECK(len.back() > 0, op,
              ": Length of all samples has to be greater than 0, but found an element in "
              "'lengths' that is <= 0 (",
              len.back(), ")");
  NABLA_CHECK(len.front() <= steps, op, ": a length of ", len.front(),
              " is longer than the input's ", steps, " time steps");
  std::vector<int64_t> batch_sizes;
  std::vector<Tensor> pieces;
  for (int64_t t = 0; t < len.front(); ++t) {
    const int64_t n = std::count_if(len.begin(), len.end(), [&](int64_t l) { return l > t; });
    batch_sizes.push_back(n);
    pieces.push_back(input.select(0, t).narrow(0, 0, n));
  }
  return PackedSequence(cat(pieces, 0), tensor(batch_sizes, TensorOptions(kLong)), sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value,
                                               optional<int64_t> total_length) {
  const char* op = "pad_packed_sequence";
  std::vector<int64_t> batch_sizes = lengths_of(sequence.batch_sizes(), op);
  int64_t steps = static_cast<int64_t>(batch_sizes.size());
  if (total_length) {
    NABLA_CHECK(*total_length >= steps, op,
                ": Expected total_length to be at least the length of the longest sequence in "
                "input, but got total_length=",
                *total_length, " and max sequence length being ", steps);
  }
  const Tensor& data = sequence.data();
  NABLA_CHECK(!batch_sizes.empty(), op, ": the packed sequence is empty");
  const int64_t batch = batch_sizes.front();
  std::vector<Tensor> rows;
  std::vector<int64_t> lengths(static_cast<size_t>(batch), 0);
  int64_t offset = 0;
  for (int64_t t = 0; t < steps; ++t) {
    const int64_t n = batch_sizes[t];
    NABLA_CHECK(n <= batch && (t == 0 || n <= batch_sizes[t - 1]), op,
                ": batch_sizes must not increase, got ", n, " after ",
                t == 0 ? batch : batch_sizes[t - 1]);
    rows.push_back(pad_steps(data.narrow(0, offset, n), batch - n, padding_value));
    offset += n;
    for (int64_t b = 0; b < n; ++b) ++lengths[b];
  }
  Tensor padded = stack(rows, 0);
  if (total_length) padded = pad_steps(padded, *total_length - steps, padding_value);
  if (batch_first) padded = padded.transpose(0, 1);
  Tensor out_lengths = tensor(lengths, TensorOptions(kLong));
  if (sequence.unsorted_indices().defined()) {
    const Tensor& order = sequence.unsorted_indices();
    padded = padded.index_select(batch_first ? 0 : 1, order);
    out_lengths = out_lengths.index_select(0, order.to(kCPU));
  }
  return {padded, out_lengths};
}

Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first, double padding_value) {
  const char* op = "pad_sequence";
  NABLA_CHECK(!sequences.empty(), op, ": received an empty list of sequences");
  int64_t longest = 0;
  for (const auto& s : sequences) {
    NABLA_CHECK(s.defined() && s.dim() >= 1, op,
                ": every sequence must be a tensor of at least 1 dim ([L, *])");
    NABLA_CHECK(s.sizes().slice(1) == sequences[0].sizes().slice(1), op,
                ": the sequences' trailing sizes must agree, got ", sequences[0].sizes(), " and ",
                s.sizes());
    longest = std::max(longest, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const auto& s : sequences)
    padded.push_back(pad_steps(s, longest - s.size(0), padding_value));
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const auto& s : sequences) {
    NABLA_CHECK(s.defined() && s.dim() >= 1, "pack_sequence: every sequence must be [L, *]");
    lengths.push_back(s.size(0));
  }
  return pack_padded_sequence(pad_sequence(sequences), tensor(lengths, TensorOptions(kLong)),
                              /*batch_first=*/false, enforce_sorted);
}

}  // namespace nabla::nn::utils::rnn
