! SPDX-License-Identifier: MIT
! Spectral Poisson solver from Fortran with dfft's Fortran module (include/dfft/dfft.f90): solve
! laplace(u) = f on the periodic box [0, 2pi)^3, as examples/poisson.cpp does in C++.
!
! In Fourier space the Laplacian multiplies by -|k|^2: u_hat = -f_hat / |k|^2 (k /= 0), u_hat(0) = 0.
! Forward r2c of f, divide, inverse c2r (scaled by 1/N: norm backward, the default). The forcing
! has the known solution u = exp(sin x + cos y + sin z) minus its mean; the program prints the
! error for N = 8, 16, 32 (spectral convergence) and exits non-zero if the last one is not tiny.
!
!   mpirun -np 4 build/bin/examples/poisson_fortran          # slab decomposition
!   mpirun -np 4 build/bin/examples/poisson_fortran pencil   # pencil, grid chosen by dfft
!
! Index convention: dfft speaks C order (axis 0 slowest). With x the fastest axis, as in a Fortran
! array u(x, y, z), the C shape is [nz, ny, nx]: C axis 0 is z, 1 is y, 2 is x, and the r2c
! transform halves x. Each rank's block is a box [lo, hi) of 0-based C indices; element (z, y, x)
! sits at 1 + sum((idx - lo) * strides) of the rank's 1-D array (any memory order).
program poisson_fortran
  use, intrinsic :: iso_c_binding
  use mpi
  use dfft
  implicit none
  real(c_double), parameter :: pi = 3.14159265358979323846d0
  integer :: ierr, rank, nsize, decomp, s
  integer :: sizes(3) = [8, 16, 32]
  real(c_double) :: err
  character(len=16) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  decomp = DFFT_SLAB_2D1D
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    if (trim(arg) == 'pencil') decomp = DFFT_PENCIL
  end if
  if (rank == 0) print '(a)', 'Poisson from Fortran, u = exp(sin x + cos y + sin z)'
  do s = 1, size(sizes)
    nsize = sizes(s)
    err = solve(nsize)
    if (rank == 0) print '(i4,a,es10.3)', nsize, '^3  max error / max |u| = ', err
  end do
  call MPI_Finalize(ierr)
  if (.not. (err < 1d-10)) error stop 1

contains

  real(c_double) function u_exact(x, y, z)
    real(c_double), intent(in) :: x, y, z
    u_exact = exp(sin(x) + cos(y) + sin(z))
  end function

  real(c_double) function forcing(x, y, z)
    real(c_double), intent(in) :: x, y, z
    forcing = u_exact(x, y, z) * (cos(x)**2 - sin(x) + sin(y)**2 - cos(y) + cos(z)**2 - sin(z))
  end function

  real(c_double) function wavenumber(i, n)
    integer, intent(in) :: i, n
    if (i <= n / 2) then
      wavenumber = i
    else
      wavenumber = i - n
    end if
  end function

  real(c_double) function solve(n) result(rel_err)
    integer, intent(in) :: n
    type(dfft_options) :: opt
    type(c_ptr) :: plan
    integer(c_int64_t) :: shape(3), lo(3), hi(3), st(3), p
    integer(c_int) :: ord(3)
    real(c_double), allocatable, target :: f(:)
    complex(c_double_complex), allocatable, target :: fh(:)
    real(c_double) :: h, k2, loc(2), tot(2), sum_u, mean
    integer :: iz, iy, ix, e
    shape = int(n, c_int64_t)
    h = 2 * pi / n
    call dfft_options_init(opt)
    opt%decomposition = decomp
    e = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan)
    if (e /= DFFT_SUCCESS) then
      print *, 'poisson_fortran: ', dfft_error_message()
      call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end if
    allocate(f(max(1_c_int64_t, dfft_plan_input_count(plan))), fh(max(1_c_int64_t, dfft_plan_output_count(plan))))

    e = dfft_plan_input_box(plan, lo, hi, ord, st)
    do iz = int(lo(1)), int(hi(1)) - 1
      do iy = int(lo(2)), int(hi(2)) - 1
        do ix = int(lo(3)), int(hi(3)) - 1
          p = 1 + (iz - lo(1)) * st(1) + (iy - lo(2)) * st(2) + (ix - lo(3)) * st(3)
          f(p) = forcing(ix * h, iy * h, iz * h)
        end do
      end do
    end do

    e = dfft_forward(plan, c_loc(f), c_loc(fh))
    e = dfft_plan_output_box(plan, lo, hi, ord, st)
    do iz = int(lo(1)), int(hi(1)) - 1
      do iy = int(lo(2)), int(hi(2)) - 1
        do ix = int(lo(3)), int(hi(3)) - 1        ! r2c: x wavenumbers 0 .. n/2
          p = 1 + (iz - lo(1)) * st(1) + (iy - lo(2)) * st(2) + (ix - lo(3)) * st(3)
          k2 = wavenumber(iz, n)**2 + wavenumber(iy, n)**2 + dble(ix)**2
          if (k2 > 0) then
            fh(p) = -fh(p) / k2
          else
            fh(p) = 0
          end if
        end do
      end do
    end do
    e = dfft_inverse(plan, c_loc(fh), c_loc(f))   ! f now holds u

    ! Compare with the zero-mean exact solution.
    e = dfft_plan_input_box(plan, lo, hi, ord, st)
    sum_u = 0
    do iz = int(lo(1)), int(hi(1)) - 1
      do iy = int(lo(2)), int(hi(2)) - 1
        do ix = int(lo(3)), int(hi(3)) - 1
          sum_u = sum_u + u_exact(ix * h, iy * h, iz * h)
        end do
      end do
    end do
    call MPI_Allreduce(sum_u, mean, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, e)
    mean = mean / dble(n)**3
    loc = 0
    do iz = int(lo(1)), int(hi(1)) - 1
      do iy = int(lo(2)), int(hi(2)) - 1
        do ix = int(lo(3)), int(hi(3)) - 1
          p = 1 + (iz - lo(1)) * st(1) + (iy - lo(2)) * st(2) + (ix - lo(3)) * st(3)
          loc(1) = max(loc(1), abs(f(p) - (u_exact(ix * h, iy * h, iz * h) - mean)))
          loc(2) = max(loc(2), abs(u_exact(ix * h, iy * h, iz * h) - mean))
        end do
      end do
    end do
    call MPI_Allreduce(loc, tot, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, e)
    rel_err = tot(1) / tot(2)
    e = dfft_plan_destroy(plan)
  end function

end program poisson_fortran
