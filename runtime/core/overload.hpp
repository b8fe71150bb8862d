#pragma once
// overload{lambdas...}: one callable of several lambdas, for std::visit over
// a variant (the machines' events and commands). Header only.

namespace ad::runtime {

template <class... F>
struct overload : F... {
  using F::operator()...;
};
template <class... F>
overload(F...) -> overload<F...>;

} // namespace ad::runtime
