#pragma once
// Variable-length sequences for recurrent networks, as torch::nn::utils::rnn:
//
//   Tensor padded = pad_sequence({a, b, c});            // [T, 3, *], zeros past each end
//   PackedSequence packed = pack_padded_sequence(padded, lengths, false, false);
//   auto [out, out_lengths] = pad_packed_sequence(packed);
//
// A PackedSequence holds the time steps of a batch of sequences back to back: step t
// contributes the first batch_sizes[t] sequences (sorted by decreasing length), so no
// padding is stored. Every function here is differentiable in its tensor inputs.
#include <tuple>

#include "nabla/core/tensor.h"

namespace nabla::nn::utils::rnn {

/// The inverse of a permutation of 0..n-1 (undefined for an undefined input).
Tensor invert_permutation(const Tensor& permutation);

class PackedSequence {
 public:
  PackedSequence() = default;
  /// sorted_indices: the batch order the packing used (undefined when the sequences came
  /// sorted); unsorted_indices defaults to its inverse.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {},
                          Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  /// int64, on the CPU: how many sequences each time step holds.
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }

  /// data converted as `options` says, the index tensors moved to its device; *this
  /// (the same tensors) when nothing changes.
  PackedSequence to(TensorOptions options) const;
  PackedSequence cuda() const;
  PackedSequence cpu() const;
  PackedSequence pin_memory() const;
  bool is_cuda() const { return data_.is_cuda(); }
  bool is_pinned() const { return data_.is_pinned(); }

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

/// Packs `input` ([T, B, *], or [B, T, *] with batch_first) whose sequence b has
/// lengths[b] valid steps. With enforce_sorted the lengths must be decreasing; otherwise
/// the batch is sorted first and the order kept in sorted_indices.
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false,
                                    bool enforce_sorted = true);

/// The inverse of pack_padded_sequence: the padded batch ([T, B, *] or [B, T, *], T the
/// longest length or total_length) and the lengths (int64), in the original batch order.
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                               bool batch_first = false, double padding_value = 0.0,
                                               optional<int64_t> total_length = nullopt);

/// Stacks sequences of shapes [L_i, *] into [max L, N, *] (or [N, max L, *]), padding each
/// past its end with padding_value.
Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first = false, double padding_value = 0);

/// pack_padded_sequence of pad_sequence(sequences) with their lengths.
PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted = true);

}  // namespace nabla::nn::utils::rnn
