// SPDX-License-Identifier: MIT
// The table of dfft::Options fields (dfft/option_fields.hpp). The text of each value type is
// written and read in one place (Text<T> below); every row names its field once, by member
// pointer, so a row cannot read one field and write another.
#include "dfft/option_fields.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <cstdint>
#include <limits>
#include <system_error>
#include <type_traits>

#include "dfft/dfft.h"
#include "dfft/dfft.hpp"
#include "dfft/tune.hpp"
#include "transport/transport.hpp"
#include "util/check.hpp"
#include "util/names.hpp"

namespace dfft {

namespace {

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// Effort has no name table in the public header: its names live here.
std::string effort_name(Effort e) {
  return e == Effort::measure ? "measure" : e == Effort::wisdom_only ? "wisdom-only" : "estimate";
}
Effort parse_effort(const std::string& s) {
  if (s == "measure") return Effort::measure;
  if (s == "estimate") return Effort::estimate;
  if (s == "wisdom-only") return Effort::wisdom_only;
  detail::fail("unknown effort '", s, "'; allowed: estimate, measure, wisdom-only");
}

template <class N>
N parse_number(const std::string& s, const char* words) {
  N v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (!s.empty() && ec == std::errc::result_out_of_range && end == s.data() + s.size())
    detail::fail("'", s, "' is out of range for ", words);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    detail::fail("'", s, "' is not ", words);
  return v;
}

// The text of one value of type T: type name, allowed names, out (to text) and in (from text).
template <class T, class = void>
struct Text;

template <>
struct Text<int> {
  static constexpr std::string_view type = "int";
  static std::string out(int v) { return std::to_string(v); }
  static int in(const std::string& s) { return parse_number<int>(s, "an integer"); }
};
template <>
struct Text<std::int64_t> {
  static constexpr std::string_view type = "int64";
  static std::string out(std::int64_t v) { return std::to_string(v); }
  static std::int64_t in(const std::string& s) { return parse_number<std::int64_t>(s, "an integer"); }
};
template <>
struct Text<double> {
  static constexpr std::string_view type = "number";
  static std::string out(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  }
  static double in(const std::string& s) { return parse_number<double>(s, "a number"); }
};
template <>
struct Text<bool> {
  static constexpr std::string_view type = "bool";
  static std::string out(bool v) { return v ? "true" : "false"; }
  static bool in(const std::string& s) {
    if (s == "true" || s == "1") return true;
    if (s == "false" || s == "0") return false;
    detail::fail("'", s, "' is not a boolean; allowed: true, false, 1, 0");
  }
};
template <>
struct Text<std::string> {
  static constexpr std::string_view type = "text";
  static std::string out(const std::string& v) { return v; }
  static std::string in(const std::string& s) { return s; }
};
// A cudaStream_t as its address in decimal (what Python's int and the C pointer carry).
template <>
struct Text<void*> {
  static constexpr std::string_view type = "pointer";
  static std::string out(void* v) { return std::to_string(reinterpret_cast<std::uintptr_t>(v)); }
  static void* in(const std::string& s) {
    return reinterpret_cast<void*>(parse_number<std::uintptr_t>(s, "an address (a whole number >= 0)"));
  }
};
// Halo widths as "lo,lo,lo/hi,hi,hi" (one list: the same widths below and above); empty: a
// dense array. The widths above are written out even when they equal those below.
template <>
struct Text<HaloWidths> {
  static constexpr std::string_view type = "halo";
  static std::string out(const HaloWidths& w) {
    if (w.empty()) return "";
    auto list = [](const std::vector<std::int64_t>& v) {
      std::vector<std::string> items;
      for (auto x : v) items.push_back(std::to_string(x));
      return join(items, ",");
    };
    return list(w.lo) + "/" + list(w.hi.empty() ? w.lo : w.hi);
  }
  static HaloWidths in(const std::string& s) {
    HaloWidths w;
    if (s.empty()) return w;
    const auto sides = split(s, '/');
    if (sides.size() > 2) detail::fail("'", s, "' is not halo widths (lo,lo,lo or lo,lo,lo/hi,hi,hi)");
    for (std::size_t k = 0; k < sides.size(); ++k)
      for (const auto& item : split(sides[k], ','))
        (k ? w.hi : w.lo).push_back(parse_number<std::int64_t>(item, "a halo width"));
    return w;
  }
};
template <>
struct Text<Effort> {
  static constexpr std::string_view type = "enum";
  static std::vector<std::string> names() { return {"estimate", "measure", "wisdom-only"}; }
  static std::string out(Effort v) { return effort_name(v); }
  static Effort in(const std::string& s) { return parse_effort(s); }
};

template <class E, E (*Parse)(const std::string&)>
struct EnumText {
  static constexpr std::string_view type = "enum";
  static std::vector<std::string> names() { return detail::names_of<E>(); }
  static std::string out(E v) { return to_string(v); }
  static E in(const std::string& s) { return Parse(s); }
};
template <> struct Text<Decomposition> : EnumText<Decomposition, parse_decomposition> {};
template <> struct Text<Variant> : EnumText<Variant, parse_variant> {};
template <> struct Text<Transform> : EnumText<Transform, parse_transform> {};
template <> struct Text<Method> : EnumText<Method, parse_method> {};
template <> struct Text<Backend> : EnumText<Backend, parse_backend> {};
template <> struct Text<R2R> : EnumText<R2R, parse_r2r> {};
template <> struct Text<Codec> : EnumText<Codec, parse_codec> {};
template <> struct Text<OneSidedSync> : EnumText<OneSidedSync, parse_onesided_sync> {};
template <> struct Text<Staging> : EnumText<Staging, parse_staging> {};
template <> struct Text<Tune> : EnumText<Tune, parse_tune> {};
template <> struct Text<Norm> : EnumText<Norm, parse_norm> {};
template <> struct Text<Directions> : EnumText<Directions, parse_directions> {};

// A function's static, not a static member: the table may be made while other translation units'
// globals are initialised (a test's constant holding a wisdom key), before a static member would be.
template <class T>
struct ListType {
  static std::string_view name() {
    static const std::string n = "list of " + std::string(Text<T>::type);
    return n;
  }
};

// A list, items separated by `Sep`; with `Auto` an empty list reads and writes as "auto" (the
// automatic process grid and methods, as the command line spells them).
template <class T, char Sep, bool Auto>
struct ListText {
  static std::string out(const std::vector<T>& v) {
    if (v.empty()) return Auto ? "auto" : "";
    std::vector<std::string> items;
    for (const auto& x : v) items.push_back(Text<T>::out(x));
    return join(items, std::string(1, Sep));
  }
  static std::vector<T> in(const std::string& s) {
    std::vector<T> v;
    if (s.empty() || (Auto && s == "auto")) return v;
    for (const auto& item : split(s, Sep)) v.push_back(Text<T>::in(item));
    return v;
  }
};

template <class T>
struct MemberType;
template <class C, class T>
struct MemberType<T C::*> {
  using type = T;
};

template <class T>
struct IsVector : std::false_type {
  using element = T;
};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {
  using element = T;
};

// Get and set of the field that member pointer P names; lists as ListText<.., Sep, Auto>.
template <auto P, char Sep = ',', bool Auto = false>
struct Field {
  static constexpr char separator = Sep;
  static constexpr bool empty_is_auto = Auto;
  using T = typename MemberType<decltype(P)>::type;
  static std::string get(const Options& o) {
    if constexpr (IsVector<T>::value)
      return ListText<typename IsVector<T>::element, Sep, Auto>::out(o.*P);
    else
      return Text<T>::out(o.*P);
  }
  static void set(Options& o, const std::string& s) {
    if constexpr (IsVector<T>::value)
      o.*P = ListText<typename IsVector<T>::element, Sep, Auto>::in(s);
    else
      o.*P = Text<T>::in(s);
  }
  static std::string_view type() {
    if constexpr (IsVector<T>::value)
      return ListType<typename IsVector<T>::element>::name();
    else
      return Text<T>::type;
  }
  static std::string_view allowed() {
    using E = typename IsVector<T>::element;
    if constexpr (std::is_enum_v<E>) {
      static const std::string names = join(Text<E>::names(), "|");
      return names;
    } else {
      return {};
    }
  }
};

// ---- The C interface's members (dfft_options, dfft/dfft.h) of a row, read into the field ----

[[noreturn]] void c_bad(const std::string& what) {
  throw InvalidArgument("plan", detail::world_rank(), "dfft C API: " + what);
}

// The member names of a row's c_field: "n_axes, axes" is {"n_axes", "axes"}.
std::vector<std::string> c_members(const OptionField& f) {
  std::vector<std::string> out;
  for (auto& m : split(std::string(f.c_field), ',')) out.push_back(m.substr(m.find_first_not_of(' ')));
  return out;
}

// One C value as the field's element type T; an enum refuses a value outside its DFFT_ constants
// (0 to the number of names of its name table).
template <class T, class V>
T c_value(V v, const std::string& member) {
  if constexpr (std::is_enum_v<T>) {
    if (v < 0 || v >= static_cast<V>(Text<T>::names().size()))
      c_bad(member + " = " + std::to_string(v) + " is not one of its DFFT_ constants");
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v ? v : "";
  } else {
    return static_cast<T>(v);
  }
}

// The checks some members have beyond their type (dfft_options documents each).
void c_nonnegative(const std::string& m, double v) {
  if (!(v >= 0)) c_bad(m + " must be >= 0");
}
void c_positive(const std::string& m, std::int64_t v) {
  if (v <= 0) c_bad(m + " must be > 0");
}
void c_limit(const std::string& m, std::int64_t v) {
  if (v < 0) c_bad(m + " must be >= 0 (0: the available memory)");
}
void c_one(const std::string& m, int v) {
  if (v != 1) c_bad(m + " = " + std::to_string(v) + ": leave it 1 and call dfft_forward_batch / dfft_inverse_batch");
}

// One member of the same name's field; `Check` (a function of the member's name and value) refuses
// what C does not allow.
template <auto CM, auto OM, auto Check = nullptr>
void c_scalar(const OptionField& f, Options& o, const dfft_options& c, int) {
  const std::string m(f.c_field);
  if constexpr (!std::is_null_pointer_v<decltype(Check)>) Check(m, c.*CM);
  o.*OM = c_value<typename MemberType<decltype(OM)>::type>(c.*CM, m);
}

// A count and an array (n_methods + methods): the first `count` items; at most Max of them (0:
// as many as the array has axes).
template <auto NM, auto AM, auto OM, int Max>
void c_counted(const OptionField& f, Options& o, const dfft_options& c, int ndims) {
  using T = typename IsVector<typename MemberType<decltype(OM)>::type>::element;
  const auto m = c_members(f);
  const int n = c.*NM, most = Max ? Max : ndims;
  if (n < 0 || n > most) c_bad(m[0] + " = " + std::to_string(n) + " (0 to " + std::to_string(most) + ")");
  std::vector<T> v;
  for (int i = 0; i < n; ++i) v.push_back(c_value<T>((c.*AM)[i], m[1] + "[i]"));
  o.*OM = v;
}

// One value per axis, `Neutral` on every axis meaning the empty list; set beyond the array's axes:
// refused. An int (1 for a padding factor of 1.0): some compilers take no floating-point template
// arguments.
template <auto AM, auto OM, int Neutral>
void c_per_axis(const OptionField& f, Options& o, const dfft_options& c, int ndims) {
  using T = typename IsVector<typename MemberType<decltype(OM)>::type>::element;
  const std::string m(f.c_field);
  const auto& a = c.*AM;
  for (int i = ndims; i < DFFT_MAX_DIMS; ++i)
    if (a[i] != Neutral)
      c_bad(m + "[" + std::to_string(i) + "] is set but the array has " + std::to_string(ndims) + " axes");
  std::vector<T> v;
  if (std::any_of(a, a + ndims, [](auto x) { return x != Neutral; }))
    for (int i = 0; i < ndims; ++i) v.push_back(c_value<T>(a[i], m + "[axis]"));
  o.*OM = v;
}

// Halo widths below and above, per axis; all 0: a dense array. Otherwise the first ndims entries,
// checked by the plan.
template <auto LoM, auto HiM, auto OM>
void c_halo(const OptionField&, Options& o, const dfft_options& c, int ndims) {
  const int n = std::min(ndims, DFFT_MAX_DIMS);
  const auto &lo = c.*LoM, &hi = c.*HiM;
  HaloWidths w;
  if (std::any_of(lo, lo + n, [](auto x) { return x != 0; }) || std::any_of(hi, hi + n, [](auto x) { return x != 0; })) {
    w.lo.assign(lo, lo + n);
    w.hi.assign(hi, hi + n);
  }
  o.*OM = w;
}

// A field the tuner chooses, as wisdom entry member EM holds it.
template <auto OM, auto EM>
void choice_of(Options& o, const WisdomEntry& e) {
  o.*OM = e.*EM;
}
template <auto OM, auto EM>
void choice_to(WisdomEntry& e, const Options& o) {
  e.*EM = o.*OM;
}

struct Row {
  std::string_view name, group, doc, flag;
  bool wisdom_key;
  std::string_view c_field, c_absent;
};


// A row and its optional columns, set by name: row<..>(..).c(..).choice<..>().
struct Builder : OptionField {
  using CRead = void (*)(const OptionField&, Options&, const dfft_options&, int);
  Builder& records(std::string_view which) {
    record = which;
    return *this;
  }
  Builder& heading(std::string_view text) {
    label = text;
    return *this;
  }
  Builder& shown(int position, std::string_view how = {}) {
    column = position;
    in_name = how;
    return *this;
  }
  Builder& named(std::string_view how) {
    in_name = how;
    return *this;
  }
  Builder& c(CRead read) {
    from_c = read;
    return *this;
  }
  template <auto OM, auto EM>
  Builder& choice() {
    from_choice = &choice_of<OM, EM>;
    to_choice = &choice_to<OM, EM>;
    return *this;
  }
  Builder& acts_when(bool (*when)(const Options&)) {
    in_effect = when;
    return *this;
  }
  Builder& resolved(void (*from)(Options&, const PlanResolution&)) {
    resolve = from;
    return *this;
  }
  Builder& how_found() {
    configuration = false;
    return *this;
  }
  Builder& distribution() {
    distribution_only = true;
    return *this;
  }
  Builder& peer_value(std::string_view text) {
    peer = text;
    return *this;
  }
  Builder& alias(std::string_view key) {
    cases_alias = key;
    return *this;
  }
  Builder& items(std::string_view flags) {
    item_flags = flags;
    return *this;
  }
  Builder& serial_value(std::string_view text) {
    serial = text;
    return *this;
  }
  Builder& formerly(std::string_view key) {
    former_key = key;
    return *this;
  }
};

// `resolved`: what the wisdom key holds instead of the value's text (OptionField::wisdom_key_resolved).
template <class F>
Builder row(const Row& r, std::string_view resolved = {}) {
  Builder f;
  f.name = r.name;
  f.label = r.name;
  f.group = r.group;
  f.type = F::type();
  f.allowed = F::allowed();
  f.doc = r.doc;
  f.flag = r.flag;
  f.wisdom_key = r.wisdom_key;
  f.wisdom_key_resolved = resolved;
  f.c_field = r.c_field;
  f.c_absent = r.c_absent;
  f.separator = F::separator;
  f.empty_is_auto = F::empty_is_auto;
  f.get = &F::get;
  f.set = &F::set;
  return f;
}

constexpr std::string_view every = "every", plan = "plan";

std::vector<OptionField> make_table() {
  using O = Options;
  using C = dfft_options;
  using W = WisdomEntry;
  // name, group, doc, flag, wisdom key, C field(s), why not from C; after the row, what the
  // wisdom key holds where it is not the value's text. Then the optional columns (Builder):
  // records(): which bench records have it whatever its value; c(): how the C members read into
  // it; choice(): the wisdom entry's member of a field the tuner chooses; resolved(): what the
  // plan resolved it to; acts_when(): when a choice acts; distribution(), how_found(), heading(),
  // peer_value(), alias(), items().
  return {
      row<Field<&O::transform>>({"transform", "problem", "r2c (inverse c2r), c2c, or r2r (a DCT/DST on every axis)",
                                 "--transform", true, "transform", ""})
          .records(every).heading("tr").shown(4).c(c_scalar<&C::transform, &O::transform>),
      row<Field<&O::r2r>>({"r2r", "problem", "per axis, the real kind (DCT/DST, r2hc, hc2r, dht) the forward transform applies (none: periodic)",
                           "--r2r", true, "r2r", ""})
          .c(c_per_axis<&C::r2r, &O::r2r, DFFT_R2R_NONE>),
      row<Field<&O::axes>>({"axes", "problem", "axes to transform, in order (empty: every axis; negative: from the end)",
                            "--axes", true, "n_axes, axes", ""})
          .c(c_counted<&C::n_axes, &C::axes, &O::axes, 0>),
      row<Field<&O::padding>>({"padding", "problem", "dealiasing factor per axis (1: not padded; 1.5: the 3/2 rule)",
                               "--padding", true, "padding", ""})
          .c(c_per_axis<&C::padding, &O::padding, 1>),
      row<Field<&O::input_halo>>({"input_halo", "problem",
                                  "ghost cells below/above the box in the input array (lo/hi per axis; empty: dense)",
                                  "", true, "input_halo_lo, input_halo_hi", ""})
          .c(c_halo<&C::input_halo_lo, &C::input_halo_hi, &O::input_halo>),
      row<Field<&O::output_halo>>({"output_halo", "problem",
                                   "ghost cells below/above the box in the output array (lo/hi per axis; empty: dense)",
                                   "", true, "output_halo_lo, output_halo_hi", ""})
          .c(c_halo<&C::output_halo_lo, &C::output_halo_hi, &O::output_halo>),
      row<Field<&O::norm>>({"norm", "problem", "scaling as numpy.fft: backward, ortho or forward; none: neither direction (FFTW's)", "--norm", true,
                            "norm", ""})
          .records(every).peer_value("null").c(c_scalar<&C::norm, &O::norm>),
      row<Field<&O::batch>>({"batch", "problem", "independent arrays transformed together", "--batch", true, "batch",
                             ""})
          .serial_value("1").c(c_scalar<&C::batch, &O::batch, c_one>),
      row<Field<&O::batches>>({"batches", "problem", "batch sizes whose batched plans the constructor makes as well",
                               "--batches", false, "",
                               "dfft_plan_prepare_batch makes a batched plan for any count"}),
      row<Field<&O::in_place>>({"in_place", "problem", "r2c on one buffer (FFTW's padded real layout)", "--in-place",
                                true, "in_place", ""})
          .named("flag").c(c_scalar<&C::in_place, &O::in_place>),
      row<Field<&O::destroy_input>>({"destroy_input", "problem",
                                     "the inverse may overwrite its input spectrum (FFTW's c2r default)",
                                     "--destroy-input", true, "destroy_input", ""})
          .c(c_scalar<&C::destroy_input, &O::destroy_input>),
      row<Field<&O::directions>>({"directions", "problem",
                                  "the directions the plan runs: both, or only forward or inverse (about half the planning)",
                                  "", true, "",
                                  "the C interface's plans run both directions"}),
      row<Field<&O::decomposition>>({"decomposition", "decomposition", "slab-2d1d, slab-1d2d, pencil or auto",
                                     "--decomp", false, "decomposition", ""})
          .records(every).heading("decomp").shown(1, "bare").peer_value("-").distribution()
          .c(c_scalar<&C::decomposition, &O::decomposition>).choice<&O::decomposition, &W::decomposition>(),
      row<Field<&O::grid, 'x', true>>({"grid", "decomposition", "process grid P1xP2 (pencil) or P (slab); auto: chosen",
                                       "--grid", true, "grid_dims, grid", ""})
          .records(every).shown(5, "named").distribution()
          .c(c_counted<&C::grid_dims, &C::grid, &O::grid, DFFT_MAX_DIMS - 1>).choice<&O::grid, &W::grid>()
          .resolved([](O& o, const PlanResolution& p) { o.grid = p.grid; }),
      row<Field<&O::variant>>({"variant", "decomposition", "default, realigned or auto", "--variant", false,
                               "variant", ""})
          .records(every).shown(2, "bare").peer_value("-").distribution()
          .c(c_scalar<&C::variant, &O::variant>).choice<&O::variant, &W::variant>(),
      // The output's memory order: on one rank another value is another local transform.
      row<Field<&O::transposed_out>>({"transposed_out", "decomposition",
                                      "the spectrum in the last stage's memory order (FFTW-MPI's transposed output)",
                                      "--transposed-out", true, "transposed_out", ""})
          .formerly("transposed").named("flag").c(c_scalar<&C::transposed_out, &O::transposed_out>),
      row<Field<&O::ranks_per_node>>({"ranks_per_node", "decomposition",
                                      "node layout: k ranks per node, or one count per node (empty: from MPI)",
                                      "--ranks-per-node", true, "",
                                      "the environment variable DFFT_RANKS_PER_NODE gives the same layout"},
                                     "the node layout found: ranks per node, or each rank's node where a node's "
                                     "ranks are not consecutive")
          .distribution(),
      // One method for every exchange is resolved to one per exchange.
      row<Field<&O::methods, ',', true>>({"methods", "exchange",
                                          "redistribution method, one for all exchanges or one per exchange (auto: chosen)",
                                          "--method", false, "n_methods, methods", ""})
          .records(every).shown(3, "bare").distribution().alias("method").items("--method1|--method2")
          .c(c_counted<&C::n_methods, &C::methods, &O::methods, DFFT_MAX_EXCHANGES>).choice<&O::methods, &W::methods>()
          .resolved([](O& o, const PlanResolution& p) {
            const std::size_t n = p.exchanges;
            if (o.methods.size() == 1 && n > 1) o.methods.assign(n, o.methods.front());
          }),
      row<Field<&O::codec>>({"codec", "exchange", "wire format of the exchanges (compressed communication)",
                             "--codec", true, "codec", ""})
          .records(plan).shown(6, "changed").distribution().c(c_scalar<&C::codec, &O::codec>)
          .resolved([](O& o, const PlanResolution& p) { o.codec = p.codec; }),
      row<Field<&O::tolerance>>({"tolerance", "exchange",
                                 "> 0: the cheapest codec whose expected relative error stays below this",
                                 "--tolerance", true, "tolerance", ""})
          .distribution().c(c_scalar<&C::tolerance, &O::tolerance, c_nonnegative>),
      row<Field<&O::onesided_sync>>({"onesided_sync", "exchange", "onesided: complete epochs by fence or flush",
                                     "--onesided-sync", true, "onesided_sync", ""})
          .distribution().c(c_scalar<&C::onesided_sync, &O::onesided_sync>),
      // Only the CUDA backend's MPI methods stage: elsewhere the record holds none.
      row<Field<&O::staging>>({"staging", "exchange", "CUDA backend, MPI methods: auto, host or cuda-aware",
                               "--staging", true, "staging", ""})
          .records(every).peer_value("null").distribution().c(c_scalar<&C::staging, &O::staging>)
          .resolved([](O& o, const PlanResolution& p) {
            if (o.backend == Backend::cuda) o.staging = p.staging;
          }),
      row<Field<&O::chunks>>({"chunks", "exchange", "pipelining pieces per peer block (0: automatic)", "--chunks",
                              false, "chunks", ""})
          .records(plan).distribution().c(c_scalar<&C::chunks, &O::chunks>).choice<&O::chunks, &W::chunks>()
          .acts_when([](const O& o) { return std::any_of(o.methods.begin(), o.methods.end(), detail::method_uses_chunks); })
          .resolved([](O& o, const PlanResolution& p) { o.chunks = p.chunks; }),
      row<Field<&O::in_flight>>({"in_flight", "exchange", "p2p-pipelined: ring steps with transfers outstanding",
                                 "--in-flight", true, "in_flight", ""})
          .records(plan).distribution().serial_value("0").c(c_scalar<&C::in_flight, &O::in_flight>)
          .choice<&O::in_flight, &W::in_flight>()
          .acts_when([](const O& o) {
            return std::find(o.methods.begin(), o.methods.end(), Method::p2p_pipelined) != o.methods.end();
          })
          .resolved([](O& o, const PlanResolution& p) { o.in_flight = p.in_flight; }),
      row<Field<&O::max_message_bytes>>({"max_message_bytes", "exchange", "largest MPI message; larger blocks are split",
                                         "--max-message-bytes", true, "max_message_bytes", ""})
          .records(plan).distribution().c(c_scalar<&C::max_message_bytes, &O::max_message_bytes, c_positive>),
      row<Field<&O::overlap>>({"overlap", "overlap", "FFT/exchange overlap slices (1: none; 0: automatic)",
                               "--overlap", false, "overlap", ""})
          .records(plan).heading("ovl").shown(7, "changed").serial_value("1").c(c_scalar<&C::overlap, &O::overlap>)
          .choice<&O::overlap, &W::overlap>()
          .acts_when([](const O& o) { return o.overlap > 1; })
          .resolved([](O& o, const PlanResolution& p) { o.overlap = p.overlap_slices; }),
      row<Field<&O::adapt>>({"adapt", "overlap", "online tuning of overlap slices, chunks and steps in flight",
                             "--adapt", true, "adapt", ""})
          .records(plan).shown(8, "flag").serial_value("false").c(c_scalar<&C::adapt, &O::adapt>),
      row<Field<&O::tune>>({"tune", "tuning", "none, heuristic (model) or measure (time candidates)", "--tune", false,
                            "tune", ""})
          .how_found().c(c_scalar<&C::tune, &O::tune>),
      row<Field<&O::wisdom_file>>({"wisdom_file", "tuning", "JSON wisdom file of the tuner and of plans with automatic fields (empty: the machine's, DFFT_WISDOM; off: none)", "--wisdom",
                                   false, "wisdom_file", ""})
          .how_found().c(c_scalar<&C::wisdom_file, &O::wisdom_file>),
      row<Field<&O::tune_budget_s>>({"tune_budget_s", "tuning", "measure: seconds before no new candidate starts",
                                     "--tune-budget", false, "tune_budget_s", ""})
          .how_found().c(c_scalar<&C::tune_budget_s, &O::tune_budget_s>),
      row<Field<&O::effort>>({"effort", "tuning", "FFTW planning: estimate, measure, or wisdom-only (FFTW wisdom the process has, else refused)", "--effort", false, "effort",
                              ""})
          .records(every).peer_value("null").c(c_scalar<&C::effort, &O::effort>),
      row<Field<&O::fftw_wisdom>>({"fftw_wisdom", "tuning", "measure: keep FFTW wisdom on disk", "--fftw-wisdom",
                                   false, "fftw_wisdom", ""})
          .how_found().c(c_scalar<&C::fftw_wisdom, &O::fftw_wisdom>),
      row<Field<&O::fftw_wisdom_dir>>({"fftw_wisdom_dir", "tuning", "directory of the FFTW wisdom files (empty: default)",
                                       "--fftw-wisdom-dir", false, "fftw_wisdom_dir", ""})
          .how_found().c(c_scalar<&C::fftw_wisdom_dir, &O::fftw_wisdom_dir>),
      row<Field<&O::backend>>({"backend", "device", "cpu or cuda", "--backend", true, "backend", ""})
          .records(every).c(c_scalar<&C::backend, &O::backend>),
      row<Field<&O::device>>({"device", "device", "CUDA: the GPU (-1: local rank modulo visible GPUs)",
                              "--device", true, "device", ""},
                             "the model name of the GPU (CUDA) or CPU")
          .c(c_scalar<&C::device, &O::device>),
      row<Field<&O::stream>>({"stream", "device", "CUDA: the cudaStream_t (as an address) all device work is queued on",
                              "", false, "stream", ""})
          .how_found().c(c_scalar<&C::stream, &O::stream>),
      row<Field<&O::user_workspace>>({"user_workspace", "device", "every execution brings the plan's work buffers",
                                      "--user-workspace", false, "user_workspace", ""})
          .c(c_scalar<&C::user_workspace, &O::user_workspace>),
      row<Field<&O::threads>>({"threads", "device",
                               "CPU: threads per rank (0: the rank's share of the cores its affinity mask holds)",
                               "--threads", true, "threads", ""},
                              "the threads per rank it resolves to (0: the rank's share of its cores)")
          .records(every).peer_value("1").c(c_scalar<&C::threads, &O::threads>)
          .resolved([](O& o, const PlanResolution& p) { o.threads = p.threads; }),
      row<Field<&O::memory_limit_bytes>>({"memory_limit_bytes", "memory",
                                          "most bytes the plan may hold per rank (0: the memory available)",
                                          "--memory-limit-bytes", true, "memory_limit_bytes", ""})
          .c(c_scalar<&C::memory_limit_bytes, &O::memory_limit_bytes, c_limit>),
  };
}

}  // namespace

const std::vector<OptionField>& option_fields() {
  static const std::vector<OptionField> table = make_table();
  return table;
}

const std::vector<std::string_view>& option_groups() {
  static const std::vector<std::string_view> groups{"problem", "decomposition", "exchange", "overlap",
                                                    "tuning",  "device",        "memory"};
  return groups;
}

const OptionField& option_field(std::string_view name) {
  for (const auto& f : option_fields())
    if (f.name == name) return f;
  std::string names;
  for (const auto& f : option_fields()) names += (names.empty() ? "" : ", ") + std::string(f.name);
  detail::fail("unknown option '", std::string(name), "'; the options are: ", names);
}

const OptionField* option_field_by_flag(std::string_view flag) {
  for (const auto& f : option_fields())
    if (!f.flag.empty() && f.flag == flag) return &f;
  return nullptr;
}

std::string get_option(const Options& o, std::string_view name) { return option_field(name).get(o); }

void set_option(Options& o, std::string_view name, const std::string& text) {
  const OptionField& f = option_field(name);
  try {
    f.set(o, text);
  } catch (const InvalidArgument& e) {
    std::string what = e.what();
    if (what.rfind("dfft: ", 0) == 0) what.erase(0, 6);
    detail::fail("option ", std::string(name), " (", std::string(f.type), "): ", what);
  }
}

std::vector<std::string> option_items(const OptionField& f, const std::string& text) {
  if (text.empty() || (f.empty_is_auto && text == "auto")) return {};
  return split(text, f.separator);
}


std::string option_fields_json() {
  // Ordered: the file keeps the table's column order, so that a row reads as the row in the source.
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const auto& f : option_fields()) {
    nlohmann::ordered_json allowed = nlohmann::ordered_json::array();
    for (const auto& n : split(std::string(f.allowed), '|'))
      if (!n.empty()) allowed.push_back(n);
    fields.push_back({{"name", f.name},
                      {"group", f.group},
                      {"type", f.type},
                      {"allowed", allowed},
                      {"default", f.default_text()},
                      {"separator", std::string(1, f.separator)},
                      {"empty_is_auto", f.empty_is_auto},
                      {"flag", f.flag},
                      {"wisdom_key", f.wisdom_key},
                      {"wisdom_key_resolved", f.wisdom_key_resolved},
                      {"c_field", f.c_field},
                      {"c_absent", f.c_absent},
                      {"record", f.record},
                      {"label", f.label},
                      {"configuration", f.configuration},
                      {"distribution_only", f.distribution_only},
                      {"peer", f.peer},
                      {"cases_alias", f.cases_alias},
                      {"item_flags", f.item_flags},
                      {"column", f.column},
                      {"in_name", f.in_name},
                      {"serial", f.serial},
                      {"former_key", f.former_key},
                      {"choice", f.from_choice != nullptr},
                      {"resolved", f.resolve != nullptr},
                      {"doc", f.doc}});
  }
  const nlohmann::ordered_json doc{
      {"comment", "dfft::Options as data (include/dfft/option_fields.hpp), as `dfft options` prints it; "
                  "tests/unit/option_fields_test.cpp fails when tools/option_fields.json is not this"},
      {"fields", fields}};
  return doc.dump(1) + "\n";
}

}  // namespace dfft
