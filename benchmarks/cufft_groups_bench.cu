// SPDX-License-Identifier: MIT
// cufft-groups-bench N f|d: cuFFT's passes over device memory on one GPU for an N^3 r2c: its 3-D
// plan, its 2-D plan batched over all planes, the slow axis alone, and the 2-D plan called on
// groups of k planes on s streams (graph: the calls captured in one CUDA graph), which would
// keep a group's intermediate results in the L2 cache if cuFFT's kernels on a few planes kept the
// GPU busy (docs/results/gpu-single.md). A pass: the input read and the output written once at
// the rate of a device-to-device copy timed in the same run. Best of 5 after a warm-up.
#include <cufft.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("ERR %s = %d line %d\n", #x, (int)e_, __LINE__); exit(1);} } while (0)

template <class F> float timeit(F f, int reps = 5) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a, 0)); f(); CK(cudaEventRecord(b, 0)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); best = std::min(best, ms);
  }
  return best;
}

int main(int argc, char** argv) {
  long N = atol(argv[1]); bool dbl = argv[2][0] == 'd';
  long H = N / 2 + 1; size_t rs = dbl ? 8 : 4, cs = 2 * rs;
  size_t inb = N * N * N * rs, outb = N * N * H * cs;
  void *in, *out; CK(cudaMalloc(&in, inb)); CK(cudaMalloc(&out, outb));
  CK(cudaMemset(in, 0, inb)); CK(cudaMemset(out, 0, outb));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("# %s L2 %d MB, N=%ld %s\n", p.name, p.l2CacheSize >> 20, N, dbl ? "double" : "float");
  cufftType R2C = dbl ? CUFFT_D2Z : CUFFT_R2C, C2R = dbl ? CUFFT_Z2D : CUFFT_C2R, C2C = dbl ? CUFFT_Z2Z : CUFFT_C2C;
  auto r2c = [&](cufftHandle h, void* i, void* o) { if (dbl) CK(cufftExecD2Z(h, (cufftDoubleReal*)i, (cufftDoubleComplex*)o)); else CK(cufftExecR2C(h, (cufftReal*)i, (cufftComplex*)o)); };
  auto c2r = [&](cufftHandle h, void* i, void* o) { if (dbl) CK(cufftExecZ2D(h, (cufftDoubleComplex*)i, (cufftDoubleReal*)o)); else CK(cufftExecC2R(h, (cufftComplex*)i, (cufftReal*)o)); };
  auto c2c = [&](cufftHandle h, void* i, void* o, int d) { if (dbl) CK(cufftExecZ2Z(h, (cufftDoubleComplex*)i, (cufftDoubleComplex*)o, d)); else CK(cufftExecC2C(h, (cufftComplex*)i, (cufftComplex*)o, d)); };
  float copy = timeit([&] { CK(cudaMemcpyAsync(out, in, std::min(inb, outb), cudaMemcpyDeviceToDevice, 0)); });
  double pass = (double)inb + outb;  // bytes of one r2c pass: read input, write output
  printf("copy %zu B: %.3f ms (%.0f GB/s r+w) ; one r2c pass at that rate %.3f ms\n", std::min(inb, outb), copy, 2.0 * std::min(inb, outb) / copy / 1e6, pass / (2.0 * std::min(inb, outb) / copy) );
  double passms = pass / (2.0 * std::min(inb, outb) / copy);
  { cufftHandle h; CK(cufftPlan3d(&h, N, N, N, R2C)); float t = timeit([&] { r2c(h, in, out); });
    cufftHandle g; CK(cufftPlan3d(&g, N, N, N, C2R)); float u = timeit([&] { c2r(g, out, in); });
    printf("cufft3d r2c %.3f ms (%.2f passes)  c2r %.3f ms\n", t, t / passms, u); cufftDestroy(h); cufftDestroy(g); }
  { int n[2] = {(int)N, (int)N}; cufftHandle h;
    CK(cufftPlanMany(&h, 2, n, nullptr, 1, N * N, nullptr, 1, N * H, R2C, N)); float t = timeit([&] { r2c(h, in, out); });
    printf("2d batched all planes r2c %.3f ms (%.2f passes)\n", t, t / passms); cufftDestroy(h); }
  { int n[1] = {(int)N}; int em[1] = {(int)N}; cufftHandle h; long plane = N * H;
    CK(cufftPlanMany(&h, 1, n, em, plane, 1, em, plane, 1, C2C, plane)); float t = timeit([&] { c2c(h, out, out, CUFFT_FORWARD); });
    printf("z axis cufft strided in place %.3f ms (%.2f out-passes)\n", t, t / (2.0 * outb / (2.0 * std::min(inb, outb) / copy))); cufftDestroy(h); }
  for (int dir = 0; dir < 2; ++dir)
  for (int k : {1, 2, 4, 8, 16}) for (int s : {1, 2, 3, 4}) for (int graph = 0; graph < 2; ++graph) {
    if (k > N) continue;
    double grpMB = k * (N * N * rs + N * H * cs) / 1e6 * s;
    if (grpMB > 200) continue;
    int n[2] = {(int)N, (int)N};
    std::vector<cufftHandle> hs(s); std::vector<cudaStream_t> st(s); std::vector<cudaEvent_t> ev(s);
    cudaEvent_t start; CK(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
    for (int i = 0; i < s; ++i) {
      CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking)); CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
      CK(cufftPlanMany(&hs[i], 2, n, nullptr, 1, N * N, nullptr, 1, N * H, dir ? C2R : R2C, k));
      CK(cufftSetStream(hs[i], st[i]));
    }
    auto body = [&](cudaStream_t main) {
      CK(cudaEventRecord(start, main));
      for (int i = 0; i < s; ++i) CK(cudaStreamWaitEvent(st[i], start, 0));
      for (long g = 0; g < N / k; ++g) {
        int i = g % s;
        char* ip = (char*)in + g * k * N * N * rs; char* op = (char*)out + g * k * N * H * cs;
        if (dir) c2r(hs[i], op, ip); else r2c(hs[i], ip, op);
      }
      for (int i = 0; i < s; ++i) { CK(cudaEventRecord(ev[i], st[i])); CK(cudaStreamWaitEvent(main, ev[i], 0)); }
    };
    float t;
    if (graph) {
      cudaStream_t cap; CK(cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking));
      cudaGraph_t gr; cudaGraphExec_t ge;
      CK(cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal)); body(cap); CK(cudaStreamEndCapture(cap, &gr));
      CK(cudaGraphInstantiate(&ge, gr, 0));
      t = timeit([&] { CK(cudaGraphLaunch(ge, 0)); });
      cudaGraphExecDestroy(ge); cudaGraphDestroy(gr); cudaStreamDestroy(cap);
    } else t = timeit([&] { body(0); });
    printf("%s groups k=%2d streams=%d graph=%d inflight %.0f MB: %.3f ms (%.2f passes)\n", dir ? "c2r" : "r2c", k, s, graph, grpMB, t, t / passms);
    for (int i = 0; i < s; ++i) { cufftDestroy(hs[i]); cudaStreamDestroy(st[i]); cudaEventDestroy(ev[i]); }
    cudaEventDestroy(start);
  }
  return 0;
}
