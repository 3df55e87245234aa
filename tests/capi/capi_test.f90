! SPDX-License-Identifier: MIT
! The Fortran module (include/dfft/dfft.f90) over the C interface: 3-D c2c double (with the round
! trip) and r2c float plans, slab and pencil, and a c2c plan on user boxes
! (dfft_plan_create_boxes_f), on a 9x8x7 array checked against a naive DFT written here; the
! options' defaults as seen from Fortran (the bind(c) type's layout); a refused option and the
! other status codes (unsupported, out of memory, options version, and an MPI error and a library
! error provoked by the failures of fault_hooks.c); a plan with a workspace of
! the caller's (dfft_forward_work). 1-4 ranks (tests/capi/CMakeLists.txt); exits non-zero on any failure.
program capi_fortran_test
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use mpi
  use dfft
  implicit none
  integer, parameter :: n0 = 9, n1 = 8, n2 = 7
  integer(c_int64_t) :: shape(3) = [integer(c_int64_t) :: n0, n1, n2]
  integer(c_int64_t) :: phys(3)
  type(dfft_options) :: opt
  type(c_ptr) :: plan
  integer :: ierr, rank, failures, total, d, nranks
  interface
    subroutine dfft_test_fail_mpi(on) bind(c, name="dfft_test_fail_mpi")
      import :: c_int
      integer(c_int), value :: on
    end subroutine
    subroutine dfft_test_fail_fftw(on) bind(c, name="dfft_test_fail_fftw")
      import :: c_int
      integer(c_int), value :: on
    end subroutine
  end interface

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  failures = 0

  call dfft_options_init(opt)
  ! Decomposition, variant, methods, chunks and overlap are chosen when the plan is made.
  if (opt%chunks /= 0 .or. opt%in_flight /= 2 .or. opt%device /= -1 .or. opt%n_methods /= 0 .or. &
      opt%decomposition /= DFFT_DECOMP_AUTO .or. opt%variant /= DFFT_VARIANT_AUTO .or. &
      opt%overlap /= 0 .or. opt%batch /= 1 .or. opt%max_message_bytes /= 2_c_int64_t**31 - 4096 .or. &
      c_associated(opt%wisdom_file) .or. opt%norm /= DFFT_NORM_BACKWARD .or. &
      opt%effort /= DFFT_MEASURE .or. opt%fftw_wisdom /= 1 .or. c_associated(opt%fftw_wisdom_dir) .or. &
      opt%version /= DFFT_OPTIONS_VERSION .or. opt%memory_limit_bytes /= 0 .or. opt%threads /= 0 .or. &
      opt%user_workspace /= 0 .or. any(opt%padding /= 1.0_c_double) .or. opt%n_axes /= 0 .or. &
      opt%transposed_out /= 0 .or. any(opt%input_halo_lo /= 0) .or. any(opt%output_halo_hi /= 0) .or. &
      opt%size /= c_sizeof(opt)) then
    print *, 'rank', rank, 'FAIL: dfft_options defaults seen from Fortran'
    failures = failures + 1
  end if

  do d = 0, 2, 2   ! slab-2d1d and pencil
    call run_c2c(d)
    call run_r2c(d)
  end do

  call run_boxes()
  call run_dct1()
  call run_workspace()

  ! Axes and padding: 2-D transforms of the planes along C axis 0, C axis 2 padded by 3/2.
  call dfft_options_init(opt)
  opt%effort = DFFT_ESTIMATE
  opt%transform = DFFT_C2C
  opt%n_axes = 2
  opt%axes(1:2) = [1, 2]
  opt%padding(3) = 1.5_c_double
  ierr = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan)
  if (ierr == DFFT_SUCCESS) ierr = dfft_plan_physical_shape(plan, phys)
  if (ierr /= DFFT_SUCCESS .or. phys(1) /= shape(1) .or. phys(3) /= shape(3) * 3 / 2) then
    print *, 'rank', rank, 'FAIL: axes and padding from Fortran:', ierr, phys
    failures = failures + 1
  end if
  if (c_associated(plan)) ierr = dfft_plan_destroy(plan)

  call dfft_options_init(opt)
  opt%methods(1) = 42
  opt%n_methods = 1
  ierr = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan)
  if (ierr /= DFFT_ERROR_INVALID_ARGUMENT .or. c_associated(plan) .or. &
      index(dfft_error_message(), 'methods') == 0) then
    print *, 'rank', rank, 'FAIL: method 42 not refused:', ierr, dfft_error_message()
    failures = failures + 1
  end if

  ! The status codes as named parameters: an unsupported method, a memory limit, a struct of
  ! another version.
  call expect_status(DFFT_ERROR_UNSUPPORTED, 'nccl on the CPU backend', method=DFFT_NCCL)
  call expect_status(DFFT_ERROR_OUT_OF_MEMORY, 'memory_limit_bytes = 1000', limit=1000_c_int64_t)
  call expect_status(DFFT_ERROR_OPTIONS_VERSION, 'options version + 1', version=DFFT_OPTIONS_VERSION + 1)
  call dfft_test_fail_fftw(1_c_int)
  call expect_status(DFFT_ERROR_LIBRARY, 'FFTW planning fails', transform=DFFT_C2C)
  call dfft_test_fail_fftw(0_c_int)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (nranks > 1) call expect_mpi_error()

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'capi fortran: ', total, ' failure(s)'
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine expect_status(want, what, method, limit, version, transform)
    integer(c_int), intent(in) :: want
    character(*), intent(in) :: what
    integer(c_int), intent(in), optional :: method, version, transform
    integer(c_int64_t), intent(in), optional :: limit
    call dfft_options_init(opt)
    if (present(method)) then
      opt%methods(1) = method
      opt%n_methods = 1
    end if
    if (present(transform)) opt%transform = transform
    if (present(limit)) opt%memory_limit_bytes = limit
    if (present(version)) opt%version = version
    ierr = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan)
    if (ierr /= want .or. c_associated(plan)) then
      print *, 'rank', rank, 'FAIL: ', what, ': status', ierr, dfft_error_message()
      failures = failures + 1
    end if
  end subroutine

  ! The exchange's MPI_Alltoallv fails on every rank: DFFT_ERROR_MPI naming it, and the plan runs
  ! again once the call works.
  subroutine expect_mpi_error()
    complex(c_double_complex), allocatable, target :: u(:), uk(:)
    integer(c_int) :: st
    call dfft_options_init(opt)
    opt%effort = DFFT_ESTIMATE
    opt%transform = DFFT_C2C
    opt%methods(1) = DFFT_A2A_SYNC
    opt%n_methods = 1
    ierr = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan)
    if (ierr /= DFFT_SUCCESS) then
      print *, 'rank', rank, 'FAIL: a2a-sync plan:', ierr, dfft_error_message()
      failures = failures + 1
      return
    end if
    allocate(u(max(1_c_int64_t, dfft_plan_input_count(plan))), uk(max(1_c_int64_t, dfft_plan_output_count(plan))))
    u = (1d0, 0d0)
    call dfft_test_fail_mpi(1_c_int)
    st = dfft_forward(plan, c_loc(u), c_loc(uk))
    call dfft_test_fail_mpi(0_c_int)
    if (st /= DFFT_ERROR_MPI .or. index(dfft_error_message(), 'MPI_Alltoallv') == 0) then
      print *, 'rank', rank, 'FAIL: a failed MPI call: status', st, dfft_error_message()
      failures = failures + 1
    end if
    if (dfft_forward(plan, c_loc(u), c_loc(uk)) /= DFFT_SUCCESS) then
      print *, 'rank', rank, 'FAIL: the plan after an MPI error:', dfft_error_message()
      failures = failures + 1
    end if
    ierr = dfft_plan_destroy(plan)
  end subroutine

  complex(c_double_complex) function input(i, j, k)
    integer, intent(in) :: i, j, k   ! 0-based C indices
    input = cmplx(sin(0.7d0 * i + 0.3d0 * j * j) + 0.25d0 * cos(1.3d0 * k), &
                  cos(0.2d0 * i * k) - 0.5d0 * sin(0.9d0 * j), c_double_complex)
  end function

  ! Naive 3-D DFT of the input (its real part only when real_only) at frequency (f0, f1, f2).
  complex(c_double_complex) function dft(f0, f1, f2, real_only)
    integer, intent(in) :: f0, f1, f2
    logical, intent(in) :: real_only
    integer :: i, j, k
    real(c_double) :: ang
    complex(c_double_complex) :: v
    real(c_double), parameter :: pi = 3.14159265358979323846d0
    dft = (0d0, 0d0)
    do i = 0, n0 - 1
      do j = 0, n1 - 1
        do k = 0, n2 - 1
          ang = -2 * pi * (dble(mod(f0 * i, n0)) / n0 + dble(mod(f1 * j, n1)) / n1 + dble(mod(f2 * k, n2)) / n2)
          v = input(i, j, k)
          if (real_only) v = cmplx(real(v), 0d0, c_double_complex)
          dft = dft + v * cmplx(cos(ang), sin(ang), c_double_complex)
        end do
      end do
    end do
  end function

  subroutine report(what, err, tol)
    character(len=*), intent(in) :: what
    real(c_double), intent(in) :: err, tol
    if (.not. (err <= tol)) then
      print '(a,i0,3a,es10.3)', 'rank ', rank, ' FAIL: ', what, ' error ', err
      failures = failures + 1
    end if
  end subroutine

  ! sqrt(sum(num) / sum(den)) over all ranks.
  real(c_double) function global_ratio(num, den)
    real(c_double), intent(in) :: num, den
    real(c_double) :: loc(2), tot(2)
    integer :: e
    loc = [num, den]
    call MPI_Allreduce(loc, tot, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, e)
    global_ratio = sqrt(tot(1) / tot(2))
  end function

  ! Global indices (0-based, C order) and array positions (1-based) of this rank's input or
  ! output block, from the plan's box and strides.
  subroutine block(input_side, idx, pos)
    logical, intent(in) :: input_side
    integer, allocatable, intent(out) :: idx(:, :)
    integer(c_int64_t), allocatable, intent(out) :: pos(:)
    integer(c_int64_t) :: lo(3), hi(3), st(3)
    integer(c_int) :: ord(3)
    integer :: i, j, k, n, e
    if (input_side) then
      e = dfft_plan_input_box(plan, lo, hi, ord, st)
    else
      e = dfft_plan_output_box(plan, lo, hi, ord, st)
    end if
    n = int(max(0_c_int64_t, product(hi - lo)))
    allocate(idx(3, n), pos(n))
    n = 0
    do i = int(lo(1)), int(hi(1)) - 1
      do j = int(lo(2)), int(hi(2)) - 1
        do k = int(lo(3)), int(hi(3)) - 1
          n = n + 1
          idx(:, n) = [i, j, k]
          pos(n) = 1 + (i - lo(1)) * st(1) + (j - lo(2)) * st(2) + (k - lo(3)) * st(3)
        end do
      end do
    end do
  end subroutine

  logical function planned(decomp, transform, precision, variant)
    integer, intent(in) :: decomp, transform, precision, variant
    call dfft_options_init(opt)
    opt%decomposition = decomp
    opt%transform = transform
    opt%variant = variant
    planned = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, precision, opt, plan) == DFFT_SUCCESS
    if (.not. planned) then
      print *, 'rank', rank, 'FAIL: plan:', dfft_error_message()
      failures = failures + 1
    end if
  end function

  ! This rank's c2c spectrum against the naive DFT (relative L2 error over all ranks <= 1e-12).
  subroutine check_c2c_forward(uk, what)
    complex(c_double_complex), intent(in) :: uk(:)
    character(len=*), intent(in) :: what
    integer, allocatable :: idx(:, :)
    integer(c_int64_t), allocatable :: pos(:)
    integer :: n
    real(c_double) :: num, den
    complex(c_double_complex) :: want
    call block(.false., idx, pos)
    num = 0; den = 0
    do n = 1, size(pos)
      want = dft(idx(1, n), idx(2, n), idx(3, n), .false.)
      num = num + abs(uk(pos(n)) - want)**2
      den = den + abs(want)**2
    end do
    call report(what, global_ratio(num, den), 1d-12)
  end subroutine

  ! The plan's c2c arrays, the input filled with this rank's block.
  subroutine c2c_arrays(u, uk)
    complex(c_double_complex), allocatable, intent(out) :: u(:), uk(:)
    integer, allocatable :: idx(:, :)
    integer(c_int64_t), allocatable :: pos(:)
    integer :: n
    allocate(u(max(1_c_int64_t, dfft_plan_input_count(plan))), uk(max(1_c_int64_t, dfft_plan_output_count(plan))))
    call block(.true., idx, pos)
    do n = 1, size(pos)
      u(pos(n)) = input(idx(1, n), idx(2, n), idx(3, n))
    end do
  end subroutine

  subroutine run_c2c(decomp)
    integer, intent(in) :: decomp
    complex(c_double_complex), allocatable, target :: u(:), uk(:)
    integer, allocatable :: idx(:, :)
    integer(c_int64_t), allocatable :: pos(:)
    integer :: n, e
    real(c_double) :: num, den
    complex(c_double_complex) :: x
    if (.not. planned(decomp, DFFT_C2C, DFFT_DOUBLE, DFFT_DEFAULT)) return
    call c2c_arrays(u, uk)
    e = dfft_forward(plan, c_loc(u), c_loc(uk))
    call check_c2c_forward(uk, 'c2c forward')
    e = dfft_inverse(plan, c_loc(uk), c_loc(u))
    call block(.true., idx, pos)
    num = 0; den = 0
    do n = 1, size(pos)
      x = input(idx(1, n), idx(2, n), idx(3, n))
      num = num + abs(u(pos(n)) - x)**2   ! the default norm scales the inverse by 1/N
      den = den + abs(x)**2
    end do
    call report('c2c round trip', global_ratio(num, den), 1d-12)
    e = dfft_plan_destroy(plan)
    if (c_associated(plan)) failures = failures + 1
  end subroutine

  subroutine run_r2c(decomp)
    integer, intent(in) :: decomp
    real(c_float), allocatable, target :: u(:)
    complex(c_float_complex), allocatable, target :: uk(:)
    integer, allocatable :: idx(:, :)
    integer(c_int64_t), allocatable :: pos(:)
    integer(c_int64_t) :: spec(3)
    integer :: n, e
    real(c_double) :: num, den
    complex(c_double_complex) :: want
    if (.not. planned(decomp, DFFT_R2C, DFFT_FLOAT, DFFT_REALIGNED)) return
    e = dfft_plan_spectral_shape(plan, spec)
    if (spec(3) /= 4) failures = failures + 1   ! n2/2 + 1 for n2 = 7
    allocate(u(max(1_c_int64_t, dfft_plan_input_count(plan))), uk(max(1_c_int64_t, dfft_plan_output_count(plan))))
    call block(.true., idx, pos)
    do n = 1, size(pos)
      u(pos(n)) = real(real(input(idx(1, n), idx(2, n), idx(3, n))), c_float)
    end do
    e = dfft_forward(plan, c_loc(u), c_loc(uk))
    call block(.false., idx, pos)
    num = 0; den = 0
    do n = 1, size(pos)
      want = dft(idx(1, n), idx(2, n), idx(3, n), .true.)
      num = num + abs(uk(pos(n)) - want)**2
      den = den + abs(want)**2
    end do
    call report('r2c float forward', global_ratio(num, den), 1d-5)
    e = dfft_plan_destroy(plan)
  end subroutine

  ! dfft_plan_create_boxes_f: input split along the fastest C axis, output along the slowest with
  ! memory order (2, 1, 0); c2c double against the naive DFT; and the plan's description.
  subroutine run_boxes()
    integer :: nranks, e
    integer(c_int64_t) :: in_lo(3), in_hi(3), out_lo(3), out_hi(3)
    integer(c_int) :: in_order(3) = [0, 1, 2], out_order(3) = [2, 1, 0]
    complex(c_double_complex), allocatable, target :: u(:), uk(:)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, e)
    in_lo = [0_c_int64_t, 0_c_int64_t, int(n2 * rank / nranks, c_int64_t)]
    in_hi = [int(n0, c_int64_t), int(n1, c_int64_t), int(n2 * (rank + 1) / nranks, c_int64_t)]
    out_lo = [int(n0 * rank / nranks, c_int64_t), 0_c_int64_t, 0_c_int64_t]
    out_hi = [int(n0 * (rank + 1) / nranks, c_int64_t), int(n1, c_int64_t), int(n2, c_int64_t)]
    call dfft_options_init(opt)
    opt%transform = DFFT_C2C
    opt%decomposition = DFFT_PENCIL
    e = dfft_plan_create_boxes_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, in_lo, in_hi, in_order, out_lo, out_hi, &
                                 out_order, opt, plan)
    if (e /= DFFT_SUCCESS) then
      print *, 'rank', rank, 'FAIL: boxes plan:', dfft_error_message()
      failures = failures + 1
      return
    end if
    if (len(dfft_plan_describe(plan)) == 0) then
      print *, 'rank', rank, 'FAIL: empty description'
      failures = failures + 1
    end if
    call c2c_arrays(u, uk)
    e = dfft_forward(plan, c_loc(u), c_loc(uk))
    call check_c2c_forward(uk, 'boxes c2c forward')
    e = dfft_plan_destroy(plan)
  end subroutine

  ! c2c with a DCT-I (FFTW's REDFT00) on C axis 1: the forward against a naive sum (DFT on axes 0
  ! and 2, y_k = x_0 + (-1)^k x_{n-1} + 2 sum x_j cos(pi j k / (n-1)) on axis 1), and the round
  ! trip (the default norm divides by n0 * 2(n1-1) * n2).
  subroutine run_dct1()
    complex(c_double_complex), allocatable, target :: u(:), uk(:), u0(:)
    integer, allocatable :: idx(:, :)
    integer(c_int64_t), allocatable :: pos(:)
    integer :: n, i, j, k, e
    real(c_double) :: num, den, w
    complex(c_double_complex) :: want
    real(c_double), parameter :: pi = 3.14159265358979323846d0
    call dfft_options_init(opt)
    opt%transform = DFFT_C2C
    opt%r2r(2) = DFFT_DCT1
    if (dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan) /= DFFT_SUCCESS) then
      print *, 'rank', rank, 'FAIL: dct1 plan:', dfft_error_message()
      failures = failures + 1
      return
    end if
    call c2c_arrays(u, uk)
    u0 = u
    e = dfft_forward(plan, c_loc(u), c_loc(uk))
    call block(.false., idx, pos)
    num = 0; den = 0
    do n = 1, size(pos)
      want = (0d0, 0d0)
      do i = 0, n0 - 1
        do j = 0, n1 - 1
          w = 2 * cos(pi * j * idx(2, n) / (n1 - 1))
          if (j == 0) w = 1
          if (j == n1 - 1) w = merge(-1d0, 1d0, mod(idx(2, n), 2) == 1)
          do k = 0, n2 - 1
            want = want + w * input(i, j, k) * exp(cmplx(0d0, -2 * pi * (dble(mod(idx(1, n) * i, n0)) &
                   / n0 + dble(mod(idx(3, n) * k, n2)) / n2), c_double_complex))
          end do
        end do
      end do
      num = num + abs(uk(pos(n)) - want)**2
      den = den + abs(want)**2
    end do
    call report('c2c + dct1 forward', global_ratio(num, den), 1d-12)
    e = dfft_inverse(plan, c_loc(uk), c_loc(u))
    call block(.true., idx, pos)
    num = 0; den = 0
    do n = 1, size(pos)
      num = num + abs(u(pos(n)) - u0(pos(n)))**2
      den = den + abs(u0(pos(n)))**2
    end do
    call report('c2c + dct1 round trip', global_ratio(num, den), 1d-12)
    e = dfft_plan_destroy(plan)
  end subroutine

  ! user_workspace: forward without a workspace refused, with one (NaN-filled) right.
  subroutine run_workspace()
    complex(c_double_complex), allocatable, target :: u(:), uk(:), work(:)
    integer(c_int64_t) :: bytes
    integer :: e
    call dfft_options_init(opt)
    opt%transform = DFFT_C2C
    opt%user_workspace = 1
    e = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan)
    if (e /= DFFT_SUCCESS) then
      print *, 'rank', rank, 'FAIL: user_workspace plan:', dfft_error_message()
      failures = failures + 1
      return
    end if
    call c2c_arrays(u, uk)
    bytes = dfft_workspace_bytes(plan)
    allocate(work(bytes / 16))
    work = cmplx(ieee_value(0d0, ieee_quiet_nan), 0d0, c_double_complex)
    e = dfft_forward(plan, c_loc(u), c_loc(uk))
    if (e /= DFFT_ERROR_INVALID_ARGUMENT) then
      print *, 'rank', rank, 'FAIL: forward without a workspace not refused:', e
      failures = failures + 1
    end if
    e = dfft_forward_work(plan, c_loc(u), c_loc(uk), c_loc(work), bytes)
    call check_c2c_forward(uk, 'c2c forward with a workspace')
    e = dfft_plan_destroy(plan)
  end subroutine

end program capi_fortran_test
