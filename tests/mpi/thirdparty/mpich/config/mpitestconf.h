/* Written for rmpl; not part of MPICH.
 *
 * MPICH's test suite includes mpitestconf.h, which its configure script generates. This is the
 * equivalent for the system rmpl builds on (Linux, glibc, GCC or Clang), with only the macros the
 * vendored files under ../test/mpi look at. HAVE_MPI_WIN_CREATE stays undefined: rmpl's MPI layer
 * has no one-sided communication, and mtest.c then leaves out its window helpers. */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED

#define STDC_HEADERS 1
#define HAVE_STDIO_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1

/* C99 types the reduction tests use with MPI_C_BOOL and the MPI_C_*_COMPLEX types. */
#define HAVE__BOOL 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define USE_LONG_DOUBLE_COMPLEX 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1

#endif
