! What the Fortran compiler that builds this layer makes of the types the
! C library must know (MPI-5.0 21.4.1, MPI_Abi_set_fortran_info and
! MPI_Abi_set_fortran_booleans): sizes of the default INTEGER, LOGICAL,
! REAL and DOUBLE PRECISION, the bit patterns of .TRUE. and .FALSE., and
! which sized kinds exist. Asked of the compiler rather than assumed, so
! that flags such as -fdefault-integer-8 cannot make the C side disagree.
! The C glue (glue_support.c) calls it once, when the library is loaded.
subroutine ol_fortran_describe(sizes, true_bytes, false_bytes, has_integer, has_real) &
    bind(C, name="ol_fortran_describe")
  use, intrinsic :: iso_c_binding, only: c_int, c_signed_char
  implicit none
  ! sizes: bytes of INTEGER, LOGICAL, REAL, DOUBLE PRECISION
  integer(c_int), intent(out) :: sizes(4)
  ! the first sizes(2) bytes of each are the literal
  integer(c_signed_char), intent(out) :: true_bytes(16), false_bytes(16)
  ! has_integer(i) for INTEGER (and LOGICAL) of 1, 2, 4, 8, 16 bytes;
  ! has_real(i) for REAL of 2, 4, 8, 16 bytes (gfortran's kinds are bytes)
  integer(c_int), intent(out) :: has_integer(5), has_real(4)
  integer :: an_integer
  logical :: a_logical
  real :: a_real
  double precision :: a_double

  sizes(1) = storage_size(an_integer) / 8
  sizes(2) = storage_size(a_logical) / 8
  sizes(3) = storage_size(a_real) / 8
  sizes(4) = storage_size(a_double) / 8
  true_bytes = 0
  false_bytes = 0
  true_bytes(1:sizes(2)) = transfer(.true., true_bytes, sizes(2))
  false_bytes(1:sizes(2)) = transfer(.false., false_bytes, sizes(2))
  has_integer(1) = merge(1, 0, selected_int_kind(2) == 1)
  has_integer(2) = merge(1, 0, selected_int_kind(4) == 2)
  has_integer(3) = merge(1, 0, selected_int_kind(9) == 4)
  has_integer(4) = merge(1, 0, selected_int_kind(18) == 8)
  has_integer(5) = merge(1, 0, selected_int_kind(38) == 16)
  has_real(1) = merge(1, 0, selected_real_kind(3, 4) == 2)
  has_real(2) = merge(1, 0, selected_real_kind(6) == 4)
  has_real(3) = merge(1, 0, selected_real_kind(15) == 8)
  has_real(4) = merge(1, 0, selected_real_kind(33) == 16)
end subroutine ol_fortran_describe
