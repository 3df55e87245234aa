// SPDX-License-Identifier: MIT
// column-fft-bench: dfft's column FFT kernel (src/backend/cuda/column_fft.hpp) against cuFFT on
// the transform it replaces: the inverse c2c along the slowest axis of an n x n x (n/2+1)
// complex array (the first half of the one-GPU inverse that keeps its input), normalised by
// 1/n^3 - cuFFT without a callback (unnormalised: the floor), cuFFT with dfft's JIT-linked store
// callback (what the plan otherwise runs), and the kernel with its two tile widths (rows of 128
// and 64 bytes per block; a width whose tile exceeds the GPU's shared memory shows "-"). Each is
// checked against cuFFT's unnormalised result times the factor before it is timed. Prints one
// row per size and precision: median ms, the kernel's bandwidth (bytes read + written / time) and
// its largest relative error. --json FILE appends one record per row (test "column-fft") for
// tools/results_pages.py. Usage: column-fft-bench [N ...] [--reps R] [--json FILE] (default
// 256 512 1024, 10 repetitions).
#include <cuda_runtime.h>
#include <cufft.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/cuda/column_fft.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/store_callbacks.hpp"
#include "gpu_bench_util.hpp"

namespace {

using dfft::detail::CudaDevice;
namespace cf = dfft::detail::column_fft;

struct Row {
  double plain = -1, callback = -1, own[2] = {-1, -1}, err[2] = {-1, -1};
  int widths[2] = {0, 0};  // columns per block of own[0] and own[1]
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

// max |got - factor * want| / max |factor * want| over the whole array, in double.
template <class T>
double rel_error(const std::vector<T>& got, const std::vector<T>& want, double factor) {
  double e = 0, m = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = factor * static_cast<double>(want[i]);
    e = std::max(e, std::abs(static_cast<double>(got[i]) - w));
    m = std::max(m, std::abs(w));
  }
  return m > 0 ? e / m : e;
}

template <class T>
Row measure(CudaDevice& dev, std::int64_t n, int reps) {
  const bool dbl = sizeof(T) == 8;
  const std::int64_t columns = n * (n / 2 + 1);
  const std::int64_t count = n * columns;  // complex elements
  const std::size_t bytes = static_cast<std::size_t>(count) * 2 * sizeof(T);
  const double factor = 1.0 / (static_cast<double>(n) * n * n);
  const cudaStream_t s = dev.stream();
  Row row;
  void* in = dev.alloc(bytes);
  void* out = dev.alloc(bytes);
  {
    std::vector<T> h(static_cast<std::size_t>(2 * count));
    std::uint32_t x = 12345;
    for (auto& v : h) {
      x = x * 1664525u + 1013904223u;
      v = static_cast<T>((x >> 8) * (1.0 / 16777216.0) - 0.5);
    }
    dev.upload(in, h.data(), bytes);
  }
  const cufftType type = dbl ? CUFFT_Z2Z : CUFFT_C2C;
  auto plan = [&](bool callback) {
    cufftHandle h;
    DFFT_CUFFT(cufftCreate(&h));
    if (callback) dfft::detail::set_scale_callback(h, type, factor, false);
    long long len = n, emb = n;
    std::size_t work = 0;
    DFFT_CUFFT(cufftMakePlanMany64(h, 1, &len, &emb, columns, 1, &emb, columns, 1, type, columns, &work));
    DFFT_CUFFT(cufftSetStream(h, s));
    return h;
  };
  auto exec = [&](cufftHandle h) {
    if (dbl)
      DFFT_CUFFT(cufftExecZ2Z(h, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out), CUFFT_INVERSE));
    else
      DFFT_CUFFT(cufftExecC2C(h, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), CUFFT_INVERSE));
    return true;
  };
  std::vector<T> want(static_cast<std::size_t>(2 * count)), got(want.size());
  {
    cufftHandle h = plan(false);
    exec(h);
    dev.synchronize();
    dev.download(want.data(), out, bytes);
    row.plain = gpubench::time_ms(s, reps, [&] { return exec(h); });
    DFFT_CUFFT(cufftDestroy(h));
  }
  if (dfft::detail::store_callbacks_available()) {
    cufftHandle h = plan(true);
    row.callback = gpubench::time_ms(s, reps, [&] { return exec(h); });
    DFFT_CUFFT(cufftDestroy(h));
  }
  cf::Geom g;
  g.columns = columns;
  g.istride = g.ostride = columns;
  g.conj = -1;
  g.factor = factor;
  const int log2n = cf::supported_log2(n);
  const int widths[2] = {cf::wide_columns<T>(), cf::narrow_columns<T>()};
  row.widths[0] = widths[0];
  row.widths[1] = widths[1];
  int max_shared = 0;
  DFFT_CUDA(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev.ordinal()));
  for (int w = 0; w < 2 && log2n >= 0; ++w) {
    if (cf::shared_bytes(log2n, widths[w], 2 * sizeof(T)) > max_shared) continue;  // the tile does not fit
    DFFT_CUDA(cudaMemsetAsync(out, 0, bytes, s));
    DFFT_CUDA(dfft::detail::cuda::launch_column_fft(in, out, g, log2n, dbl, widths[w], s));
    dev.synchronize();
    dev.download(got.data(), out, bytes);
    row.err[w] = rel_error(got, want, factor);
    row.own[w] = gpubench::time_ms(s, reps, [&] {
      return dfft::detail::cuda::launch_column_fft(in, out, g, log2n, dbl, widths[w], s) == cudaSuccess;
    });
  }
  dev.release(in);
  dev.release(out);
  return row;
}

std::string fmt(double v, const char* f) {
  if (v < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string ms(double v) { return fmt(v, "%.3f"); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<std::int64_t> sizes;
  int reps = 10;
  std::string json_path, command = "column-fft-bench";
  for (int i = 1; i < argc; ++i) {
    command += std::string(" ") + argv[i];
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      command += std::string(" ") + argv[i + 1], reps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc)
      json_path = argv[++i], command += " FILE";
    else
      sizes.push_back(std::atoll(argv[i]));
  }
  if (sizes.empty()) sizes = {256, 512, 1024};
  if (!gpubench::gpu_present("column-fft-bench")) {
    MPI_Finalize();
    return 0;
  }
  int rc = 0;
  try {
    CudaDevice dev(MPI_COMM_SELF, -1);
    std::printf("column-fft-bench: %s; inverse c2c along x of n x n x (n/2+1) complex, times 1/n^3; median of %d\n",
                dev.name().c_str(), reps);
    std::printf("%-6s %-6s %12s %14s %12s %12s %10s %12s %12s\n", "n", "prec", "cuFFT ms", "cuFFT+cb ms",
                "128B rows", "64B rows", "dfft GB/s", "err 128B", "err 64B");
    for (std::int64_t n : sizes)
      for (bool dbl : {false, true}) {
        const Row r = dbl ? measure<double>(dev, n, reps) : measure<float>(dev, n, reps);
        const double gb = static_cast<double>(n) * n * (n / 2 + 1) * (dbl ? 16 : 8) * 2 * 1e-9;
        double best = -1;
        for (double v : r.own)
          if (v > 0 && (best < 0 || v < best)) best = v;
        std::printf("%-6lld %-6s %12s %14s %12s %12s %10s %12s %12s\n", static_cast<long long>(n),
                    dbl ? "double" : "float", ms(r.plain).c_str(), ms(r.callback).c_str(), ms(r.own[0]).c_str(),
                    ms(r.own[1]).c_str(), fmt(best > 0 ? gb / (best * 1e-3) : -1, "%.0f").c_str(),
                    fmt(r.err[0], "%.2e").c_str(), fmt(r.err[1], "%.2e").c_str());
        for (double e : r.err)
          if (e > (dbl ? 1e-12 : 1e-5)) rc = 1;
        if (!json_path.empty()) {
          cudaDeviceProp prop{};
          DFFT_CUDA(cudaGetDeviceProperties(&prop, dev.ordinal()));
          auto opt = [](double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); };
          nlohmann::json rec = {
              {"test", "column-fft"},
              {"size", {n, n, n / 2 + 1}},
              {"precision", dbl ? "double" : "float"},
              {"factor", "1/n^3"},
              {"reps", reps},
              {"time_ms",
               {{"cufft", opt(r.plain)}, {"cufft_callback", opt(r.callback)}, {"kernel_wide", opt(r.own[0])},
                {"kernel_narrow", opt(r.own[1])}}},
              {"columns", {{"kernel_wide", r.widths[0]}, {"kernel_narrow", r.widths[1]}}},
              {"error", {{"kernel_wide", opt(r.err[0])}, {"kernel_narrow", opt(r.err[1])}}},
              {"timestamp", utc_now()},
              {"machine", {{"gpu_model", prop.name}}},
              {"run", {{"command", command}}}};
          std::ofstream(json_path, std::ios::app) << rec.dump() << "\n";
        }
      }
    if (rc) std::printf("column-fft-bench: FAILED: an error above 1e-5 (float) or 1e-12 (double)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "column-fft-bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
