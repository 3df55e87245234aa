// SPDX-License-Identifier: MIT
// The names used everywhere (CLI, JSON, test names) for the enums.
#include <array>
#include <utility>
#include <vector>

#include "util/check.hpp"
#include "util/names.hpp"

namespace dfft {

namespace {

template <class E, std::size_t N>
using Table = std::array<std::pair<E, const char*>, N>;

constexpr Table<Decomposition, 4> kDecomp{{{Decomposition::slab_2d1d, "slab-2d1d"},
                                           {Decomposition::slab_1d2d, "slab-1d2d"},
                                           {Decomposition::pencil, "pencil"},
                                           {Decomposition::automatic, "auto"}}};
constexpr Table<Variant, 3> kVariant{{{Variant::Default, "default"},
                                      {Variant::Realigned, "realigned"},
                                      {Variant::automatic, "auto"}}};
constexpr Table<Transform, 3> kTransform{
    {{Transform::r2c, "r2c"}, {Transform::c2c, "c2c"}, {Transform::r2r, "r2r"}}};
constexpr Table<R2R, 12> kR2R{{{R2R::none, "none"},
                              {R2R::dct1, "dct1"},
                              {R2R::dct2, "dct2"},
                              {R2R::dct3, "dct3"},
                              {R2R::dct4, "dct4"},
                              {R2R::dst1, "dst1"},
                              {R2R::dst2, "dst2"},
                              {R2R::dst3, "dst3"},
                              {R2R::dst4, "dst4"},
                              {R2R::r2hc, "r2hc"},
                              {R2R::hc2r, "hc2r"},
                              {R2R::dht, "dht"}}};
// Method names live here, not only in the method table (src/transport/methods.cpp), so that the
// parsers (and the fuzzers, which link this file alone) need no transport code.
constexpr Table<Method, 12> kMethod{{{Method::a2a_sync, "a2a-sync"},
                                    {Method::a2a_type, "a2a-type"},
                                    {Method::p2p_sync, "p2p-sync"},
                                    {Method::p2p_type, "p2p-type"},
                                    {Method::p2p_streams, "p2p-streams"},
                                    {Method::nccl, "nccl"},
                                    {Method::onesided, "onesided"},
                                    {Method::p2p_pipelined, "p2p-pipelined"},
                                    {Method::cuda_ipc, "cuda-ipc"},
                                    {Method::node_ring, "node-ring"},
                                    {Method::hierarchical, "hierarchical"},
                                    {Method::per_peer, "per-peer"}}};
constexpr Table<Codec, 4> kCodec{{{Codec::none, "none"}, {Codec::fp32, "fp32"},
                                  {Codec::fp16, "fp16"}, {Codec::bf16, "bf16"}}};
constexpr Table<OneSidedSync, 2> kSync{{{OneSidedSync::fence, "fence"}, {OneSidedSync::flush, "flush"}}};
constexpr Table<Backend, 2> kBackend{{{Backend::cpu, "cpu"}, {Backend::cuda, "cuda"}}};
constexpr Table<Staging, 3> kStaging{{{Staging::automatic, "auto"},
                                      {Staging::host, "host"},
                                      {Staging::cuda_aware, "cuda-aware"}}};
constexpr Table<Norm, 4> kNorm{
    {{Norm::backward, "backward"}, {Norm::ortho, "ortho"}, {Norm::forward, "forward"}, {Norm::none, "none"}}};
constexpr Table<Directions, 3> kDirections{
    {{Directions::both, "both"}, {Directions::forward, "forward"}, {Directions::inverse, "inverse"}}};
constexpr Table<Tune, 3> kTune{{{Tune::none, "none"}, {Tune::heuristic, "heuristic"}, {Tune::measure, "measure"}}};

template <class T, class E>
std::string name_of(const T& t, E e) {
  for (auto& [v, n] : t)
    if (v == e) return n;
  return "?";
}

template <class T>
auto parse(const T& t, const std::string& s, const char* what) {
  std::string allowed;
  for (auto& [v, n] : t) {
    if (s == n) return v;
    allowed += (allowed.empty() ? "" : ", ") + std::string(n);
  }
  detail::fail("unknown ", what, " '", s, "'; allowed: ", allowed);
}

template <class T>
std::vector<std::string> all_names(const T& t) {
  std::vector<std::string> out;
  for (auto& [v, n] : t) out.emplace_back(n);
  return out;
}

}  // namespace

std::string to_string(Decomposition e) { return name_of(kDecomp, e); }
std::string to_string(Variant e) { return name_of(kVariant, e); }
std::string to_string(Transform e) { return name_of(kTransform, e); }
std::string to_string(Method e) { return name_of(kMethod, e); }
std::string to_string(Backend e) { return name_of(kBackend, e); }
std::string to_string(R2R e) { return name_of(kR2R, e); }
std::string to_string(Codec e) { return name_of(kCodec, e); }
std::string to_string(OneSidedSync e) { return name_of(kSync, e); }
std::string to_string(Staging e) { return name_of(kStaging, e); }
std::string to_string(Tune e) { return name_of(kTune, e); }
Decomposition parse_decomposition(const std::string& s) { return parse(kDecomp, s, "decomposition"); }
Variant parse_variant(const std::string& s) { return parse(kVariant, s, "variant"); }
Transform parse_transform(const std::string& s) { return parse(kTransform, s, "transform"); }
Method parse_method(const std::string& s) { return parse(kMethod, s, "method"); }
std::vector<Method> parse_methods(const std::string& s) {
  if (s == "auto") return {};
  return {parse_method(s)};
}
Backend parse_backend(const std::string& s) { return parse(kBackend, s, "backend"); }
R2R parse_r2r(const std::string& s) { return parse(kR2R, s, "r2r kind"); }
Codec parse_codec(const std::string& s) { return parse(kCodec, s, "codec"); }
OneSidedSync parse_onesided_sync(const std::string& s) { return parse(kSync, s, "one-sided sync"); }
Staging parse_staging(const std::string& s) { return parse(kStaging, s, "staging"); }
Tune parse_tune(const std::string& s) { return parse(kTune, s, "tune mode"); }
std::string to_string(Norm e) { return name_of(kNorm, e); }
Norm parse_norm(const std::string& s) { return parse(kNorm, s, "norm"); }
std::string to_string(Directions e) { return name_of(kDirections, e); }
Directions parse_directions(const std::string& s) { return parse(kDirections, s, "directions"); }

namespace detail {
template <> std::vector<std::string> names_of<Decomposition>() { return all_names(kDecomp); }
template <> std::vector<std::string> names_of<Variant>() { return all_names(kVariant); }
template <> std::vector<std::string> names_of<Transform>() { return all_names(kTransform); }
template <> std::vector<std::string> names_of<Method>() { return all_names(kMethod); }
template <> std::vector<std::string> names_of<Backend>() { return all_names(kBackend); }
template <> std::vector<std::string> names_of<R2R>() { return all_names(kR2R); }
template <> std::vector<std::string> names_of<Codec>() { return all_names(kCodec); }
template <> std::vector<std::string> names_of<OneSidedSync>() { return all_names(kSync); }
template <> std::vector<std::string> names_of<Staging>() { return all_names(kStaging); }
template <> std::vector<std::string> names_of<Tune>() { return all_names(kTune); }
template <> std::vector<std::string> names_of<Norm>() { return all_names(kNorm); }
template <> std::vector<std::string> names_of<Directions>() { return all_names(kDirections); }
}  // namespace detail

}  // namespace dfft
