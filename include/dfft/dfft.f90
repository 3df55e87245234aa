! SPDX-License-Identifier: MIT
! dfft Fortran interface: iso_c_binding declarations of the C interface (dfft/dfft.h), compiled
! with the application (a source module, so no .mod file ties users to dfft's compiler):
!
!   use dfft
!   type(dfft_options) :: opt
!   type(c_ptr) :: plan
!   integer(c_int64_t) :: shape(3) = [n1, n2, n3]      ! C order: axis 0 slowest
!   call dfft_options_init(opt)
!   opt%transform = DFFT_C2C
!   ierr = dfft_plan_create_f(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, opt, plan)
!   ierr = dfft_forward(plan, c_loc(u), c_loc(uk))
!   ierr = dfft_plan_destroy(plan)
!
! A Fortran array u(n3, n2, n1) is the C shape [n1, n2, n3]. Boxes (lo, hi) are 0-based C
! indices, axis 0 first. The communicator is the Fortran handle (an integer, MPI_Comm_c2f; with
! mpi_f08 pass comm%MPI_VAL). Arguments that C accepts as NULL (orders, strides) are required
! arrays here. opt%wisdom_file and opt%fftw_wisdom_dir take c_loc of a NUL-terminated character(kind=c_char) array.
! docs/c-api.md.
module dfft
  use, intrinsic :: iso_c_binding
  implicit none

  integer(c_int), parameter :: DFFT_MAX_DIMS = 8
  integer(c_int), parameter :: DFFT_MAX_EXCHANGES = DFFT_MAX_DIMS - 1
  integer(c_int), parameter :: DFFT_OPTIONS_VERSION = 7
  ! Statuses (dfft_status in dfft.h).
  integer(c_int), parameter :: DFFT_SUCCESS = 0, DFFT_ERROR_INVALID_ARGUMENT = 1, DFFT_ERROR_MPI = 2, &
                               DFFT_ERROR_LIBRARY = 3, DFFT_ERROR_OUT_OF_MEMORY = 4, &
                               DFFT_ERROR_INTERNAL = 5, DFFT_ERROR_UNSUPPORTED = 6, &
                               DFFT_ERROR_OPTIONS_VERSION = 7
  integer(c_int), parameter :: DFFT_ERROR_INPUT = DFFT_ERROR_INVALID_ARGUMENT, &
                               DFFT_ERROR_MEMORY = DFFT_ERROR_OUT_OF_MEMORY
  integer(c_int), parameter :: DFFT_DOUBLE = 0, DFFT_FLOAT = 1
  integer(c_int), parameter :: DFFT_SLAB_2D1D = 0, DFFT_SLAB_1D2D = 1, DFFT_PENCIL = 2, &
                                DFFT_DECOMP_AUTO = 3
  integer(c_int), parameter :: DFFT_DEFAULT = 0, DFFT_REALIGNED = 1, DFFT_VARIANT_AUTO = 2
  integer(c_int), parameter :: DFFT_R2C = 0, DFFT_C2C = 1, DFFT_R2R = 2
  integer(c_int), parameter :: DFFT_R2R_NONE = 0, DFFT_DCT2 = 1, DFFT_DST2 = 2, DFFT_DCT1 = 3, &
                               DFFT_DCT3 = 4, DFFT_DCT4 = 5, DFFT_DST1 = 6, DFFT_DST3 = 7, &
                               DFFT_DST4 = 8, DFFT_R2HC = 9, DFFT_HC2R = 10, DFFT_DHT = 11
  integer(c_int), parameter :: DFFT_A2A_SYNC = 0, DFFT_A2A_TYPE = 1, DFFT_P2P_SYNC = 2, &
                               DFFT_P2P_TYPE = 3, DFFT_P2P_STREAMS = 4, DFFT_NCCL = 5, &
                               DFFT_ONESIDED = 6, DFFT_P2P_PIPELINED = 7, DFFT_CUDA_IPC = 8, &
                               DFFT_NODE_RING = 9, DFFT_HIERARCHICAL = 10, DFFT_PER_PEER = 11
  integer(c_int), parameter :: DFFT_ESTIMATE = 0, DFFT_MEASURE = 1, DFFT_WISDOM_ONLY = 2
  integer(c_int), parameter :: DFFT_NORM_BACKWARD = 0, DFFT_NORM_ORTHO = 1, DFFT_NORM_FORWARD = 2, &
                               DFFT_NORM_NONE = 3
  integer(c_int), parameter :: DFFT_CPU = 0, DFFT_CUDA = 1
  integer(c_int), parameter :: DFFT_CODEC_NONE = 0, DFFT_CODEC_FP32 = 1, DFFT_CODEC_FP16 = 2, &
                               DFFT_CODEC_BF16 = 3
  integer(c_int), parameter :: DFFT_FENCE = 0, DFFT_FLUSH = 1
  integer(c_int), parameter :: DFFT_STAGING_AUTO = 0, DFFT_STAGING_HOST = 1, &
                               DFFT_STAGING_CUDA_AWARE = 2
  integer(c_int), parameter :: DFFT_TUNE_NONE = 0, DFFT_TUNE_HEURISTIC = 1, DFFT_TUNE_MEASURE = 2

  ! Same fields, order and types as struct dfft_options in dfft.h: flat, fields only ever
  ! appended (docs/design.md, "Options groups"). The groups of dfft::Options (docs/options.md):
  !   problem:       transform, r2r, n_axes + axes, padding, norm, batch, in_place, destroy_input
  !   decomposition: decomposition, grid_dims + grid, variant, transposed_out
  !   exchange:      n_methods + methods, codec, tolerance, onesided_sync, staging, chunks,
  !                  in_flight, max_message_bytes
  !   overlap:       overlap, adapt
  !   tuning:        tune, wisdom_file, tune_budget_s, effort, fftw_wisdom, fftw_wisdom_dir
  !   device:        backend, device, stream, user_workspace, threads
  !   memory:        memory_limit_bytes
  type, bind(c) :: dfft_options
    integer(c_int64_t) :: size
    integer(c_int) :: version
    integer(c_int) :: decomposition, variant, transform, backend, effort, norm, codec
    integer(c_int) :: onesided_sync, staging, tune, n_methods
    integer(c_int) :: methods(DFFT_MAX_EXCHANGES)
    integer(c_int) :: grid_dims
    integer(c_int) :: grid(DFFT_MAX_DIMS - 1)
    integer(c_int) :: r2r(DFFT_MAX_DIMS)
    integer(c_int) :: chunks, in_flight, overlap, adapt, device, batch, in_place
    integer(c_int) :: fftw_wisdom, threads
    integer(c_int64_t) :: max_message_bytes, memory_limit_bytes
    real(c_double) :: tolerance, tune_budget_s
    type(c_ptr) :: wisdom_file, fftw_wisdom_dir
    type(c_ptr) :: stream
    integer(c_int) :: user_workspace  ! version 3: 1 = every execution brings its workspace
    ! Version 4: n_axes = 0: every axis, else axes(1:n_axes) are the transformed axes (numbered as
    ! in C, 0 = the slowest), the last halved for r2c; padding factors per axis (1: none).
    integer(c_int) :: n_axes
    real(c_double) :: padding(DFFT_MAX_DIMS)
    integer(c_int) :: axes(DFFT_MAX_DIMS)
    integer(c_int) :: transposed_out  ! version 5: 1 = the spectrum in the last stage's order
    ! Version 6: halo (ghost cells) or padding around the box in the input and output arrays,
    ! per axis in C order (axis 0 slowest): _lo cells below the box, _hi above (0: dense).
    integer(c_int64_t) :: input_halo_lo(DFFT_MAX_DIMS), input_halo_hi(DFFT_MAX_DIMS)
    integer(c_int64_t) :: output_halo_lo(DFFT_MAX_DIMS), output_halo_hi(DFFT_MAX_DIMS)
    integer(c_int) :: destroy_input  ! version 7: 1 = dfft_inverse may overwrite its input
  end type dfft_options

  type, bind(c) :: dfft_timings
    real(c_double) :: fft, pack, comm, unpack, total
  end type dfft_timings

  type, bind(c) :: dfft_memory
    integer(c_int64_t) :: host_bytes, device_bytes
  end type dfft_memory

  interface
    subroutine dfft_options_init(options) bind(c, name="dfft_options_init")
      import :: dfft_options
      type(dfft_options), intent(out) :: options
    end subroutine

    integer(c_int) function dfft_plan_create_f(comm, ndims, shape, precision, options, plan) &
        bind(c, name="dfft_plan_create_f")
      import :: c_int, c_int64_t, c_ptr, dfft_options
      integer(c_int), value :: comm, ndims, precision
      integer(c_int64_t), intent(in) :: shape(*)
      type(dfft_options), intent(in) :: options
      type(c_ptr), intent(out) :: plan
    end function

    integer(c_int) function dfft_plan_create_boxes_f(comm, ndims, shape, precision, in_lo, in_hi, &
        in_order, out_lo, out_hi, out_order, options, plan) bind(c, name="dfft_plan_create_boxes_f")
      import :: c_int, c_int64_t, c_ptr, dfft_options
      integer(c_int), value :: comm, ndims, precision
      integer(c_int64_t), intent(in) :: shape(*), in_lo(*), in_hi(*), out_lo(*), out_hi(*)
      integer(c_int), intent(in) :: in_order(*), out_order(*)
      type(dfft_options), intent(in) :: options
      type(c_ptr), intent(out) :: plan
    end function

    integer(c_int) function dfft_plan_destroy(plan) bind(c, name="dfft_plan_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: plan
    end function

    integer(c_int) function dfft_forward(plan, in, out) bind(c, name="dfft_forward")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, in, out
    end function

    integer(c_int) function dfft_inverse(plan, in, out) bind(c, name="dfft_inverse")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, in, out
    end function

    ! With a workspace of the caller's (work_bytes >= dfft_workspace_bytes(plan)).
    integer(c_int) function dfft_forward_work(plan, in, out, work, work_bytes) bind(c, name="dfft_forward_work")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: plan, in, out, work
      integer(c_int64_t), value :: work_bytes
    end function

    integer(c_int) function dfft_inverse_work(plan, in, out, work, work_bytes) bind(c, name="dfft_inverse_work")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: plan, in, out, work
      integer(c_int64_t), value :: work_bytes
    end function

    integer(c_int64_t) function dfft_workspace_bytes(plan) bind(c, name="dfft_workspace_bytes")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: plan
    end function

    integer(c_int) function dfft_forward_batch(plan, batch, in, out) bind(c, name="dfft_forward_batch")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, in, out
      integer(c_int), value :: batch
    end function

    integer(c_int) function dfft_inverse_batch(plan, batch, in, out) bind(c, name="dfft_inverse_batch")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, in, out
      integer(c_int), value :: batch
    end function

    integer(c_int) function dfft_plan_ndims(plan) bind(c, name="dfft_plan_ndims")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function

    integer(c_int64_t) function dfft_plan_input_count(plan) bind(c, name="dfft_plan_input_count")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: plan
    end function

    integer(c_int64_t) function dfft_plan_output_count(plan) bind(c, name="dfft_plan_output_count")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: plan
    end function

    ! Elements before the box's first element in the local array (0 without a halo).
    integer(c_int64_t) function dfft_plan_input_start(plan) bind(c, name="dfft_plan_input_start")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: plan
    end function

    integer(c_int64_t) function dfft_plan_output_start(plan) bind(c, name="dfft_plan_output_start")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: plan
    end function

    integer(c_int) function dfft_plan_spectral_shape(plan, shape) bind(c, name="dfft_plan_spectral_shape")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: plan
      integer(c_int64_t), intent(out) :: shape(*)
    end function

    integer(c_int) function dfft_plan_physical_shape(plan, shape) bind(c, name="dfft_plan_physical_shape")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: plan
      integer(c_int64_t), intent(out) :: shape(*)
    end function

    integer(c_int) function dfft_plan_input_box(plan, lo, hi, order, strides) &
        bind(c, name="dfft_plan_input_box")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: plan
      integer(c_int64_t), intent(out) :: lo(*), hi(*), strides(*)
      integer(c_int), intent(out) :: order(*)
    end function

    integer(c_int) function dfft_plan_output_box(plan, lo, hi, order, strides) &
        bind(c, name="dfft_plan_output_box")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: plan
      integer(c_int64_t), intent(out) :: lo(*), hi(*), strides(*)
      integer(c_int), intent(out) :: order(*)
    end function

    integer(c_int) function dfft_plan_grid(plan, grid) bind(c, name="dfft_plan_grid")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), intent(out) :: grid(*)
    end function

    integer(c_int) function dfft_plan_prepare_batch(plan, batch) bind(c, name="dfft_plan_prepare_batch")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), value :: batch
    end function

    integer(c_int) function dfft_plan_memory(plan, memory) bind(c, name="dfft_plan_memory")
      import :: c_int, c_ptr, dfft_memory
      type(c_ptr), value :: plan
      type(dfft_memory), intent(out) :: memory
    end function

    integer(c_int) function dfft_plan_timings(plan, timings) bind(c, name="dfft_plan_timings")
      import :: c_int, c_ptr, dfft_timings
      type(c_ptr), value :: plan
      type(dfft_timings), intent(out) :: timings
    end function

    integer(c_int) function dfft_plan_allocate(plan, bytes, pointer) bind(c, name="dfft_plan_allocate")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan
      integer(c_size_t), value :: bytes
      type(c_ptr), intent(out) :: pointer
    end function

    integer(c_int) function dfft_plan_deallocate(plan, pointer) bind(c, name="dfft_plan_deallocate")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, pointer
    end function

    integer(c_int) function dfft_plan_upload(plan, dst, host_src, bytes) bind(c, name="dfft_plan_upload")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan, dst, host_src
      integer(c_size_t), value :: bytes
    end function

    integer(c_int) function dfft_plan_download(plan, host_dst, src, bytes) bind(c, name="dfft_plan_download")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan, host_dst, src
      integer(c_size_t), value :: bytes
    end function

    integer(c_size_t) function dfft_plan_describe_c(plan, buffer, size) bind(c, name="dfft_plan_describe")
      import :: c_size_t, c_ptr, c_char
      type(c_ptr), value :: plan
      character(kind=c_char), intent(out) :: buffer(*)
      integer(c_size_t), value :: size
    end function

    type(c_ptr) function dfft_error_message_c() bind(c, name="dfft_error_message")
      import :: c_ptr
    end function

    ! Halo exchange (docs/halo.md): width_hi and periodic are required arrays here (C's NULL:
    ! pass width_lo again, or all 1 for every axis periodic).
    integer(c_int) function dfft_halo_create_f(comm, ndims, lo, hi, order, width_lo, width_hi, &
        periodic, corners, precision, complex_values, halo) bind(c, name="dfft_halo_create_f")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: comm, ndims, corners, precision, complex_values
      integer(c_int64_t), intent(in) :: lo(*), hi(*), width_lo(*), width_hi(*)
      integer(c_int), intent(in) :: order(*), periodic(*)
      type(c_ptr), intent(out) :: halo
    end function

    integer(c_int) function dfft_halo_create_plan(plan, side, width_lo, width_hi, periodic, corners, &
        complex_values, halo) bind(c, name="dfft_halo_create_plan")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), value :: side, corners, complex_values
      integer(c_int64_t), intent(in) :: width_lo(*), width_hi(*)
      integer(c_int), intent(in) :: periodic(*)
      type(c_ptr), intent(out) :: halo
    end function

    integer(c_int) function dfft_halo_exchange(halo, data, count) bind(c, name="dfft_halo_exchange")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: halo, data
      integer(c_int64_t), value :: count
    end function

    integer(c_int64_t) function dfft_halo_count(halo) bind(c, name="dfft_halo_count")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: halo
    end function

    integer(c_int) function dfft_halo_box(halo, lo, hi, strides) bind(c, name="dfft_halo_box")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: halo
      integer(c_int64_t), intent(out) :: lo(*), hi(*), strides(*)
    end function

    integer(c_int) function dfft_halo_destroy(halo) bind(c, name="dfft_halo_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: halo
    end function
  end interface

contains

  ! The message of the last failure in this thread, as a Fortran string.
  function dfft_error_message() result(msg)
    character(len=:), allocatable :: msg
    interface
      integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
        import :: c_size_t, c_ptr
        type(c_ptr), value :: s
      end function
    end interface
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = dfft_error_message_c()
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: msg)
    do i = 1, n
      msg(i:i) = chars(i)
    end do
  end function

  ! The plan's path as text (dfft_plan_describe).
  function dfft_plan_describe(plan) result(text)
    type(c_ptr), intent(in) :: plan
    character(len=:), allocatable :: text
    character(kind=c_char) :: probe(1)
    character(kind=c_char), allocatable :: buf(:)
    integer(c_size_t) :: n
    integer :: i
    n = dfft_plan_describe_c(plan, probe, 1_c_size_t)
    allocate(buf(n + 1))
    n = dfft_plan_describe_c(plan, buf, n + 1)
    allocate(character(len=int(n)) :: text)
    do i = 1, int(n)
      text(i:i) = buf(i)
    end do
  end function

end module dfft
