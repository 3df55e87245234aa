// The names used everywhere (CLI, JSON, test names) for the enums.
#include <array>
#include <utility>

#include "util/check.hpp"

namespace dfft {

namespace {

template <class E, std::size_t N>
using Table = std::array<std::pair<E, const char*>, N>;

constexpr Table<Decomposition, 3> kDecomp{{{Decomposition::slab_2d1d, "slab-2d1d"},
                                           {Decomposition::slab_1d2d, "slab-1d2d"},
                                           {Decomposition::pencil, "pencil"}}};
constexpr Table<Variant, 2> kVariant{{{Variant::Default, "default"}, {Variant::Realigned, "realigned"}}};
constexpr Table<Transform, 2> kTransform{{{Transform::r2c, "r2c"}, {Transform::c2c, "c2c"}}};
constexpr Table<Method, 6> kMethod{{{Method::a2a_sync, "a2a-sync"},
                                    {Method::a2a_type, "a2a-type"},
                                    {Method::p2p_sync, "p2p-sync"},
                                    {Method::p2p_type, "p2p-type"},
                                    {Method::p2p_streams, "p2p-streams"},
                                    {Method::nccl, "nccl"}}};
constexpr Table<Backend, 2> kBackend{{{Backend::cpu, "cpu"}, {Backend::cuda, "cuda"}}};

template <class E, std::size_t N>
std::string name_of(const Table<E, N>& t, E e) {
  for (auto& [v, n] : t)
    if (v == e) return n;
  return "?";
}

template <class E, std::size_t N>
E parse(const Table<E, N>& t, const std::string& s, const char* what) {
  std::string allowed;
  for (auto& [v, n] : t) {
    if (s == n) return v;
    allowed += (allowed.empty() ? "" : ", ") + std::string(n);
  }
  detail::fail("unknown ", what, " '", s, "'; allowed: ", allowed);
}

}  // namespace

std::string to_string(Decomposition e) { return name_of(kDecomp, e); }
std::string to_string(Variant e) { return name_of(kVariant, e); }
std::string to_string(Transform e) { return name_of(kTransform, e); }
std::string to_string(Method e) { return name_of(kMethod, e); }
std::string to_string(Backend e) { return name_of(kBackend, e); }
Decomposition parse_decomposition(const std::string& s) { return parse(kDecomp, s, "decomposition"); }
Variant parse_variant(const std::string& s) { return parse(kVariant, s, "variant"); }
Transform parse_transform(const std::string& s) { return parse(kTransform, s, "transform"); }
Method parse_method(const std::string& s) { return parse(kMethod, s, "method"); }
Backend parse_backend(const std::string& s) { return parse(kBackend, s, "backend"); }

}  // namespace dfft
