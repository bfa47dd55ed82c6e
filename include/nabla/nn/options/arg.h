#pragma once
// NABLA_ARG(T, name): one option of an `*Options` struct, spelled as LibTorch's
// TORCH_ARG so that option chains port unchanged:
//   F::Conv2dFuncOptions().stride(2).padding(1)   // setters return *this
//   opts.stride()                                 // getter
// The member is `name_`; its default is given where the macro is used:
//   NABLA_ARG(int64_t, groups) = 1;
#include <cstdint>
#include <utility>

#define NABLA_ARG(T, name)                                 \
 public:                                                   \
  auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                            \
    return *this;                                          \
  }                                                        \
  auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                 \
    return *this;                                          \
  }                                                        \
  const T& name() const noexcept { return this->name##_; } \
  T& name() noexcept { return this->name##_; }             \
                                                           \
 private:                                                  \
  T name##_
