! SPDX-License-Identifier: MIT
! The halo exchange through the Fortran module (dfft_halo_create_f): a Fortran array
! u(nz+2, ny+2, nx+2) on 2-D slabs of the C shape {nx, ny, nz} = {9, 6, 5} cut along axis 0,
! width 1, axis 0 and 2 periodic, axis 1 not, with corners; every cell compared with the wrap
! padding written here from the global index (cells beyond the non-periodic ends keep the fill).
! Run on 1-4 ranks; exits non-zero on any difference.
program capi_halo_test
  use mpi
  use dfft
  implicit none
  integer, parameter :: nx = 9, ny = 6, nz = 5
  real(c_double), parameter :: fill = -7.5d0
  integer :: ierr, rank, nranks, st, i, j, k, bad, allbad, gi, gj, gk
  integer(c_int64_t) :: lo(3), hi(3), w(3), glo(3), ghi(3), strides(3), n
  integer(c_int) :: order(3), periodic(3)
  type(c_ptr) :: h
  real(c_double), allocatable, target :: u(:, :, :)
  real(c_double) :: want

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  lo = [int(nx * rank / nranks, c_int64_t), 0_c_int64_t, 0_c_int64_t]
  hi = [int(nx * (rank + 1) / nranks, c_int64_t), int(ny, c_int64_t), int(nz, c_int64_t)]
  order = [0, 1, 2]
  w = [1_c_int64_t, 1_c_int64_t, 1_c_int64_t]
  periodic = [1, 0, 1]
  st = dfft_halo_create_f(MPI_COMM_WORLD, 3, lo, hi, order, w, w, periodic, 1, DFFT_DOUBLE, 0, h)
  if (st /= DFFT_SUCCESS) then
    print *, 'rank', rank, 'dfft_halo_create_f: ', dfft_error_message()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  n = dfft_halo_count(h)
  st = dfft_halo_box(h, glo, ghi, strides)
  allocate(u(ghi(3) - glo(3), ghi(2) - glo(2), ghi(1) - glo(1)))
  if (size(u, kind=c_int64_t) /= n .or. strides(3) /= 1) then
    print *, 'rank', rank, 'halo array shape or strides unexpected'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  u = fill
  do i = 1, int(hi(1) - lo(1))
    do j = 1, ny
      do k = 1, nz
        u(k + 1, j + 1, i + 1) = value(int(lo(1)) + i - 1, j - 1, k - 1)
      end do
    end do
  end do
  st = dfft_halo_exchange(h, c_loc(u), n)
  if (st /= DFFT_SUCCESS) print *, 'rank', rank, 'dfft_halo_exchange: ', dfft_error_message()
  bad = 0
  do i = 1, size(u, 3)
    do j = 1, size(u, 2)
      do k = 1, size(u, 1)
        gi = int(glo(1)) + i - 1
        gj = int(glo(2)) + j - 1
        gk = int(glo(3)) + k - 1
        if (gj < 0 .or. gj >= ny) then
          want = fill
        else
          want = value(modulo(gi, nx), gj, modulo(gk, nz))
        end if
        if (u(k, j, i) /= want) bad = bad + 1
      end do
    end do
  end do
  st = dfft_halo_destroy(h)
  deallocate(u)  ! a main program's allocatables are not freed at its end (LeakSanitizer sees them)
  call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'fortran halo:', allbad, 'cell(s) differ'
  call MPI_Finalize(ierr)
  if (allbad /= 0) stop 1

contains

  real(c_double) function value(a, b, c)
    integer, intent(in) :: a, b, c
    value = real(a * 100 + b * 10 + c, c_double) + 0.25d0
  end function

end program
