/* SPDX-License-Identifier: MIT */
/* The installed C interface (dfft/dfft.h) from a C program: one c2c round trip with
 * normalisation; exit code 0 when it comes back to rounding. */
#include <dfft/dfft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  dfft_options opt;
  dfft_options_init(&opt);
  opt.transform = DFFT_C2C;
  opt.norm = DFFT_NORM_BACKWARD;
  const int64_t shape[3] = {9, 8, 6};
  dfft_plan plan;
  int code = 1;
  if (dfft_plan_create(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, &opt, &plan) != DFFT_SUCCESS) {
    fprintf(stderr, "downstream C: %s\n", dfft_error_message());
  } else {
    const long n = 2 * (long)dfft_plan_input_count(plan), m = 2 * (long)dfft_plan_output_count(plan);
    double* in = malloc(sizeof(double) * (size_t)(n + 1));
    double* back = malloc(sizeof(double) * (size_t)(n + 1));
    double* out = malloc(sizeof(double) * (size_t)(m + 1));
    for (long i = 0; i < n; ++i) in[i] = sin(0.37 * (double)i);
    double err = 0;
    if (dfft_forward(plan, in, out) == DFFT_SUCCESS && dfft_inverse(plan, out, back) == DFFT_SUCCESS) {
      for (long i = 0; i < n; ++i) err = fmax(err, fabs(back[i] - in[i]));
      printf("downstream C: dfft round trip max error %.2e\n", err);
      code = err < 1e-12 ? 0 : 1;
    } else {
      fprintf(stderr, "downstream C: %s\n", dfft_error_message());
    }
    free(in);
    free(back);
    free(out);
    dfft_plan_destroy(&plan);
  }
  MPI_Finalize();
  return code;
}
