// SPDX-License-Identifier: MIT
// The candidate plans of the tuner, in the order they are tried: first every decomposition,
// grid and variant with one method for all exchanges, then the mixed per-exchange methods, so
// that a time budget that runs out early has still seen every decomposition.
#include <algorithm>

#include "dfft/option_fields.hpp"
#include "dfft/tune.hpp"
#include "transport/methods.hpp"
#include "tune/automatic.hpp"

namespace dfft {

namespace {


bool chunked(const Options& o) {
  return std::any_of(o.methods.begin(), o.methods.end(),
                     detail::method_uses_chunks);
}

struct Shape {
  Decomposition dec;
  std::vector<int> grid;
  int exchanges;      // exchanges of the path
  int busy;           // exchanges whose sub-communicator has more than one member
};

std::vector<Shape> shapes_for(const Options& base, int ranks, int dims) {
  std::vector<Shape> out;
  const auto& g = base.grid;
  if (g.size() <= 1) {
    const std::vector<int> slab{ranks};
    if (g.empty() || g[0] == ranks)
      for (auto d : {Decomposition::slab_2d1d, Decomposition::slab_1d2d})
        out.push_back({d, slab, 1, ranks > 1 ? 1 : 0});
  }
  if (dims >= 3 && (g.empty() || g.size() == 2)) {
    for (int p1 = ranks; p1 >= 1; --p1) {
      if (ranks % p1) continue;
      std::vector<int> grid{p1, ranks / p1};
      if (!g.empty() && g != grid) continue;
      out.push_back({Decomposition::pencil, grid, 2, (grid[0] > 1) + (grid[1] > 1)});
    }
  } else if (dims >= 3 && g.size() > 2) {  // a fixed higher-dimensional pencil grid
    int busy = 0;
    for (int v : g) busy += v > 1;
    out.push_back({Decomposition::pencil, g, static_cast<int>(g.size()), busy});
  }
  return out;
}

void add_with_chunks(std::vector<Options>& out, Options o) {
  if (!chunked(o)) {
    out.push_back(std::move(o));
    return;
  }
  for (int c : detail::kChunkChoices) {
    o.chunks = c;
    out.push_back(o);
  }
}

}  // namespace

std::vector<Method> tune_methods(Backend b) {
  std::vector<Method> m;
  for (const auto& i : detail::method_table())
    if (b == Backend::cuda ? i.cuda : i.cpu) m.push_back(i.method);
  return m;
}

std::vector<Options> tune_candidates(const Options& asked, int ranks, int dims, int nodes) {
  const Options base = detail::with_fixed_defaults(asked);  // automatic chunks and overlap
  auto methods = tune_methods(base.backend);
  if (nodes < 2)  // on one node they send what p2p-sync sends
    std::erase_if(methods, [](Method m) { return detail::method_info(m).node_aware; });
  const auto shapes = shapes_for(base, ranks, dims);
  std::vector<Options> out;
  auto make = [&](const Shape& sh, Variant v, std::vector<Method> ms) {
    Options o = base;
    o.decomposition = sh.dec;
    o.grid = sh.grid;
    o.variant = v;
    o.methods = std::move(ms);
    o.chunks = base.chunks;
    add_with_chunks(out, o);
  };
  // Pass 1: one method for every exchange. An exchange inside a one-member sub-communicator
  // sends nothing, so where no exchange has peers the method is not varied at all.
  for (const auto& sh : shapes)
    for (auto v : {Variant::Default, Variant::Realigned}) {
      if (sh.busy == 0) {
        make(sh, v, {methods.front()});
        continue;
      }
      for (auto m : methods) make(sh, v, {m});
    }
  // Pass 2: a different method per exchange, where two exchanges have peers (2-D grids).
  for (const auto& sh : shapes) {
    if (sh.busy < 2 || sh.exchanges != 2) continue;
    for (auto v : {Variant::Default, Variant::Realigned})
      for (auto m1 : methods)
        for (auto m2 : methods)
          if (m1 != m2) make(sh, v, {m1, m2});
  }
  // Pass 3: the one-method candidates again with FFT/exchange overlap (docs/overlap.md), last so
  // that a budget that runs out has seen every plain plan first.
  if (base.overlap == 1) {
    const std::size_t plain = out.size();
    for (std::size_t i = 0; i < plain; ++i) {
      if (out[i].methods.size() != 1) continue;
      const auto sh = std::find_if(shapes.begin(), shapes.end(), [&](const Shape& x) {
        return x.dec == out[i].decomposition && x.grid == out[i].grid;
      });
      if (sh == shapes.end() || sh->busy == 0) continue;
      Options o = out[i];
      o.overlap = detail::kOverlapChoice;
      out.push_back(o);
    }
  }
  return out;
}

// The fields the tuner chooses, in the table's order: one that always acts by its text, one that
// acts only with some values of the others as name=value where it acts and is not at its
// default, so that a plain candidate reads "pencil 2x1 default a2a-type".
std::string tune_label(const Options& o) {
  std::string s;
  for (const OptionField& f : option_fields()) {
    if (!f.from_choice) continue;
    const std::string text = f.get(o);
    if (!f.in_effect) {
      s += (s.empty() ? "" : " ") + text;
    } else if (f.in_effect(o) && text != f.default_text()) {
      s += " ";
      s += f.name;
      s += "=" + text;
    }
  }
  return s;
}

std::string to_string(TuneCandidate::Status s) {
  switch (s) {
    case TuneCandidate::Status::measured: return "measured";
    case TuneCandidate::Status::cut: return "cut";
    case TuneCandidate::Status::rejected: return "rejected";
    case TuneCandidate::Status::not_run: return "not run";
    case TuneCandidate::Status::predicted: return "predicted";
  }
  return "?";
}

}  // namespace dfft
