#pragma once
// The enum-like option values of LibTorch (torch::kMean, torch::kReflect, ...): one
// empty struct type per value in nabla::enumtype, a constant of that type in nabla, and
// std::variant option types listing which values an option accepts. Code written as
//   F::mse_loss(x, y, F::MSELossFuncOptions(nabla::kSum))
// compiles as it does with torch::kSum; a value an option does not list fails to compile.
#include <string>
#include <variant>

namespace nabla {
namespace enumtype {

#define NABLA_ENUM_VALUE(Name, Printed)                     \
  struct Name {                                             \
    static constexpr const char* name() { return Printed; } \
  };
NABLA_ENUM_VALUE(kNone, "kNone")
NABLA_ENUM_VALUE(kMean, "kMean")
NABLA_ENUM_VALUE(kSum, "kSum")
NABLA_ENUM_VALUE(kBatchMean, "kBatchMean")
NABLA_ENUM_VALUE(kZeros, "kZeros")
NABLA_ENUM_VALUE(kConstant, "kConstant")
NABLA_ENUM_VALUE(kReflect, "kReflect")
NABLA_ENUM_VALUE(kReplicate, "kReplicate")
NABLA_ENUM_VALUE(kCircular, "kCircular")
NABLA_ENUM_VALUE(kValid, "kValid")
NABLA_ENUM_VALUE(kSame, "kSame")
NABLA_ENUM_VALUE(kNearest, "kNearest")
NABLA_ENUM_VALUE(kNearestExact, "kNearestExact")
NABLA_ENUM_VALUE(kLinear, "kLinear")
NABLA_ENUM_VALUE(kBilinear, "kBilinear")
NABLA_ENUM_VALUE(kBicubic, "kBicubic")
NABLA_ENUM_VALUE(kTrilinear, "kTrilinear")
NABLA_ENUM_VALUE(kArea, "kArea")
NABLA_ENUM_VALUE(kTanh, "kTanh")
NABLA_ENUM_VALUE(kReLU, "kReLU")
NABLA_ENUM_VALUE(kLeakyReLU, "kLeakyReLU")
NABLA_ENUM_VALUE(kSigmoid, "kSigmoid")
NABLA_ENUM_VALUE(kGELU, "kGELU")
NABLA_ENUM_VALUE(kSELU, "kSELU")
NABLA_ENUM_VALUE(kConv1D, "kConv1D")
NABLA_ENUM_VALUE(kConv2D, "kConv2D")
NABLA_ENUM_VALUE(kConv3D, "kConv3D")
NABLA_ENUM_VALUE(kConvTranspose1D, "kConvTranspose1D")
NABLA_ENUM_VALUE(kConvTranspose2D, "kConvTranspose2D")
NABLA_ENUM_VALUE(kConvTranspose3D, "kConvTranspose3D")
NABLA_ENUM_VALUE(kFanIn, "kFanIn")
NABLA_ENUM_VALUE(kFanOut, "kFanOut")
NABLA_ENUM_VALUE(kLSTM, "kLSTM")
NABLA_ENUM_VALUE(kGRU, "kGRU")
NABLA_ENUM_VALUE(kRNN_TANH, "kRNN_TANH")
NABLA_ENUM_VALUE(kRNN_RELU, "kRNN_RELU")
NABLA_ENUM_VALUE(kMax, "kMax")
NABLA_ENUM_VALUE(kBorder, "kBorder")
NABLA_ENUM_VALUE(kReflection, "kReflection")
NABLA_ENUM_VALUE(kSiLU, "kSiLU")
NABLA_ENUM_VALUE(kMish, "kMish")
#undef NABLA_ENUM_VALUE

/// The printed name of a variant's current value ("kMean").
template <class... Ts>
std::string get_enum_name(const std::variant<Ts...>& v) {
  return std::visit([](const auto& e) { return std::string(e.name()); }, v);
}

}  // namespace enumtype

inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kSum kSum{};
inline constexpr enumtype::kBatchMean kBatchMean{};
inline constexpr enumtype::kZeros kZeros{};
inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kSame kSame{};
inline constexpr enumtype::kNearest kNearest{};
inline constexpr enumtype::kNearestExact kNearestExact{};
inline constexpr enumtype::kLinear kLinear{};
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kTrilinear kTrilinear{};
inline constexpr enumtype::kArea kArea{};
inline constexpr enumtype::kTanh kTanh{};
inline constexpr enumtype::kReLU kReLU{};
inline constexpr enumtype::kLeakyReLU kLeakyReLU{};
inline constexpr enumtype::kSigmoid kSigmoid{};
inline constexpr enumtype::kGELU kGELU{};
inline constexpr enumtype::kSELU kSELU{};
inline constexpr enumtype::kConv1D kConv1D{};
inline constexpr enumtype::kConv2D kConv2D{};
inline constexpr enumtype::kConv3D kConv3D{};
inline constexpr enumtype::kConvTranspose1D kConvTranspose1D{};
inline constexpr enumtype::kConvTranspose2D kConvTranspose2D{};
inline constexpr enumtype::kConvTranspose3D kConvTranspose3D{};
inline constexpr enumtype::kFanIn kFanIn{};
inline constexpr enumtype::kFanOut kFanOut{};
inline constexpr enumtype::kLSTM kLSTM{};
inline constexpr enumtype::kGRU kGRU{};
inline constexpr enumtype::kRNN_TANH kRNN_TANH{};
inline constexpr enumtype::kRNN_RELU kRNN_RELU{};
inline constexpr enumtype::kMax kMax{};
inline constexpr enumtype::kBorder kBorder{};
inline constexpr enumtype::kReflection kReflection{};
inline constexpr enumtype::kSiLU kSiLU{};
inline constexpr enumtype::kMish kMish{};

namespace nn {
/// What a loss reduces its per-element values to (LibTorch's loss_reduction_t).
using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;
/// kl_div also accepts kBatchMean (sum divided by the batch size).
using kldiv_reduction_t =
    std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
}  // namespace nn

}  // namespace nabla
