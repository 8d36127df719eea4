/* rmpl's MPI-compatible interface: existing MPI programs build with rmpl's mpicc / mpicxx and run
 * under its mpirun unchanged. A thin layer over rmpl's kernel (src/mpi/): matching, protocols and
 * collective algorithms are rmpl's own, shared with its C++ and C APIs.
 *
 * What is here: MPI-3.1's point-to-point chapter, derived datatypes (distributed arrays included),
 * MPI_Pack_external in "external32", collectives (blocking and nonblocking), operators, groups,
 * communicators, attribute caching, Cartesian, graph and distributed graph topologies with their
 * neighbourhood collectives, the environment, error handlers, Info objects as far as those need
 * them, generalized requests, and the C side of handle conversion (MPI_Comm_c2f...). What is not
 * (yet): one-sided communication (windows), MPI-IO, dynamic processes, the tools interface,
 * Fortran bindings. A program that calls a function that is not here fails to link, with the
 * function's name.
 *
 * Every MPI_X has its profiling twin PMPI_X (MPI_X is a weak alias of PMPI_X).
 *
 * Handles are pointers to opaque objects; the predefined ones are addresses of objects inside the
 * library, so they are constant expressions usable in static initialisers, as in Open MPI. */
#ifndef RMPL_MPI_H
#define RMPL_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MPI-3.1 minus the chapters listed above (see MPI_Get_library_version for this build). */
#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define RMPL_MPI 1

/* Open MPI's library is libmpi.so too, and a build can pick it up by mistake (a -L of its own
 * ahead of rmpl's). Every translation unit that includes this header therefore refers to a symbol
 * that only rmpl's libmpi (shared or static) defines, so that a program compiled against this
 * mpi.h and linked with another MPI fails to link with "undefined reference to
 * `rmpl_mpi_h_needs_rmpl_libmpi'" instead of failing at run time (or a configure probe "finding"
 * functions rmpl does not have). The cost is one pointer of read-only data per translation unit,
 * no code. "used" and "retain" keep it through optimisation and --gc-sections; "unused" and the
 * pragmas keep -Werror builds quiet (an old assembler without SHF_GNU_RETAIN makes GCC warn that it
 * ignores "retain"). A shared library is allowed undefined symbols: one built so fails when loaded,
 * with the same name. */
#if defined(__GNUC__) || defined(__clang__)
extern const char rmpl_mpi_h_needs_rmpl_libmpi;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
#if defined(__has_attribute)
#if __has_attribute(retain)
#define RMPL_MPI_RETAIN_ __attribute__((retain))
#endif
#endif
#ifndef RMPL_MPI_RETAIN_
#define RMPL_MPI_RETAIN_
#endif
static const char* const rmpl_mpi_h_link_check __attribute__((used, unused)) RMPL_MPI_RETAIN_ =
    &rmpl_mpi_h_needs_rmpl_libmpi;
#undef RMPL_MPI_RETAIN_
#pragma GCC diagnostic pop
#endif

/* ------------------------------------------------------------------ handles and basic types */

typedef struct rmpl_mpi_comm* MPI_Comm;
typedef struct rmpl_mpi_group* MPI_Group;
typedef struct rmpl_mpi_datatype* MPI_Datatype;
typedef struct rmpl_mpi_op* MPI_Op;
typedef struct rmpl_mpi_request* MPI_Request;
typedef struct rmpl_mpi_message* MPI_Message;
typedef struct rmpl_mpi_errhandler* MPI_Errhandler;
typedef struct rmpl_mpi_info* MPI_Info;

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int rmpl_cancelled;   /* private: MPI_Test_cancelled */
  MPI_Count rmpl_bytes; /* private: bytes received (MPI_Get_count, MPI_Get_elements) */
} MPI_Status;

#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)

/* ------------------------------------------------------------------ constants */

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_BOTTOM ((void*)0)
#define MPI_IN_PLACE ((void*)1)
#define MPI_BSEND_OVERHEAD 64

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

enum {
  MPI_THREAD_SINGLE = 0,
  MPI_THREAD_FUNNELED = 1,
  MPI_THREAD_SERIALIZED = 2,
  MPI_THREAD_MULTIPLE = 3
};
/* Results of MPI_Comm_compare and MPI_Group_compare. */
enum { MPI_IDENT = 0, MPI_CONGRUENT = 1, MPI_SIMILAR = 2, MPI_UNEQUAL = 3 };
/* MPI_Topo_test. */
enum { MPI_GRAPH = 1, MPI_CART = 2, MPI_DIST_GRAPH = 3 };
/* The weights arguments of the distributed graph constructors: no weights at all, or none here
 * (a degree of zero) in a weighted graph. Addresses of the library's own (compared, never read):
 * a constant like (int*)1 passed for an array parameter makes GCC warn (-Wstringop-overread). */
extern int rmpl_mpi_unweighted[], rmpl_mpi_weights_empty[];
#define MPI_UNWEIGHTED (rmpl_mpi_unweighted)
#define MPI_WEIGHTS_EMPTY (rmpl_mpi_weights_empty)
/* MPI_Comm_split_type. */
enum { MPI_COMM_TYPE_SHARED = 1 };
/* MPI_Type_create_subarray and darray. */
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };
enum { MPI_DISTRIBUTE_BLOCK = 121, MPI_DISTRIBUTE_CYCLIC = 122, MPI_DISTRIBUTE_NONE = 123 };
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
/* MPI_Type_get_envelope. */
enum {
  MPI_COMBINER_NAMED = 1,
  MPI_COMBINER_DUP,
  MPI_COMBINER_CONTIGUOUS,
  MPI_COMBINER_VECTOR,
  MPI_COMBINER_HVECTOR,
  MPI_COMBINER_INDEXED,
  MPI_COMBINER_HINDEXED,
  MPI_COMBINER_INDEXED_BLOCK,
  MPI_COMBINER_HINDEXED_BLOCK,
  MPI_COMBINER_STRUCT,
  MPI_COMBINER_SUBARRAY,
  MPI_COMBINER_DARRAY,
  MPI_COMBINER_RESIZED,
  MPI_COMBINER_F90_REAL,
  MPI_COMBINER_F90_COMPLEX,
  MPI_COMBINER_F90_INTEGER
};
/* MPI_Type_match_size. */
enum { MPI_TYPECLASS_INTEGER = 1, MPI_TYPECLASS_REAL = 2, MPI_TYPECLASS_COMPLEX = 3 };

/* Predefined attribute keys (MPI_Comm_get_attr on any communicator). */
enum {
  MPI_TAG_UB = 0x64400001,
  MPI_HOST,
  MPI_IO,
  MPI_WTIME_IS_GLOBAL,
  MPI_UNIVERSE_SIZE,
  MPI_LASTUSEDCODE,
  MPI_APPNUM
};

/* Error classes (an error code returned by a call is its class). */
enum {
  MPI_SUCCESS = 0,
  MPI_ERR_BUFFER,
  MPI_ERR_COUNT,
  MPI_ERR_TYPE,
  MPI_ERR_TAG,
  MPI_ERR_COMM,
  MPI_ERR_RANK,
  MPI_ERR_REQUEST,
  MPI_ERR_ROOT,
  MPI_ERR_GROUP,
  MPI_ERR_OP,
  MPI_ERR_TOPOLOGY,
  MPI_ERR_DIMS,
  MPI_ERR_ARG,
  MPI_ERR_UNKNOWN,
  MPI_ERR_TRUNCATE,
  MPI_ERR_OTHER,
  MPI_ERR_INTERN,
  MPI_ERR_IN_STATUS,
  MPI_ERR_PENDING,
  MPI_ERR_KEYVAL,
  MPI_ERR_NO_MEM,
  MPI_ERR_INFO,
  MPI_ERR_INFO_KEY,
  MPI_ERR_INFO_VALUE,
  MPI_ERR_INFO_NOKEY,
  MPI_ERR_PROC_FAILED, /* a rank of the job died (the message names it) */
  MPI_ERR_CONVERSION,  /* a value the external32 representation cannot hold (MPI_Pack_external) */
  /* The other classes of MPI 4.1 (files, windows, ports, sessions, ...) */
  MPI_ERR_ACCESS,
  MPI_ERR_AMODE,
  MPI_ERR_ASSERT,
  MPI_ERR_BAD_FILE,
  MPI_ERR_BASE,
  MPI_ERR_DISP,
  MPI_ERR_DUP_DATAREP,
  MPI_ERR_FILE_EXISTS,
  MPI_ERR_FILE_IN_USE,
  MPI_ERR_FILE,
  MPI_ERR_IO,
  MPI_ERR_LOCKTYPE,
  MPI_ERR_NAME,
  MPI_ERR_NOT_SAME,
  MPI_ERR_NO_SPACE,
  MPI_ERR_NO_SUCH_FILE,
  MPI_ERR_PORT,
  MPI_ERR_PROC_ABORTED,
  MPI_ERR_QUOTA,
  MPI_ERR_READ_ONLY,
  MPI_ERR_RMA_ATTACH,
  MPI_ERR_RMA_CONFLICT,
  MPI_ERR_RMA_RANGE,
  MPI_ERR_RMA_SHARED,
  MPI_ERR_RMA_SYNC,
  MPI_ERR_RMA_FLAVOR,
  MPI_ERR_SERVICE,
  MPI_ERR_SESSION,
  MPI_ERR_SIZE,
  MPI_ERR_SPAWN,
  MPI_ERR_UNSUPPORTED_DATAREP,
  MPI_ERR_UNSUPPORTED_OPERATION,
  MPI_ERR_VALUE_TOO_LARGE,
  MPI_ERR_WIN,
  MPI_ERR_ERRHANDLER,
  MPI_ERR_LASTCODE
};

/* ------------------------------------------------------------------ predefined objects */

#define RMPL_MPI_PREDEFINED(type, object) ((type)&object)

extern struct rmpl_mpi_comm rmpl_mpi_comm_world, rmpl_mpi_comm_self;
#define MPI_COMM_WORLD RMPL_MPI_PREDEFINED(MPI_Comm, rmpl_mpi_comm_world)
#define MPI_COMM_SELF RMPL_MPI_PREDEFINED(MPI_Comm, rmpl_mpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)

extern struct rmpl_mpi_group rmpl_mpi_group_empty;
#define MPI_GROUP_EMPTY RMPL_MPI_PREDEFINED(MPI_Group, rmpl_mpi_group_empty)
#define MPI_GROUP_NULL ((MPI_Group)0)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
extern struct rmpl_mpi_message rmpl_mpi_message_no_proc;
#define MPI_MESSAGE_NO_PROC RMPL_MPI_PREDEFINED(MPI_Message, rmpl_mpi_message_no_proc)
#define MPI_INFO_NULL ((MPI_Info)0)
extern struct rmpl_mpi_info rmpl_mpi_info_env;
#define MPI_INFO_ENV RMPL_MPI_PREDEFINED(MPI_Info, rmpl_mpi_info_env)

extern struct rmpl_mpi_errhandler rmpl_mpi_errors_are_fatal, rmpl_mpi_errors_return;
#define MPI_ERRORS_ARE_FATAL RMPL_MPI_PREDEFINED(MPI_Errhandler, rmpl_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN RMPL_MPI_PREDEFINED(MPI_Errhandler, rmpl_mpi_errors_return)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)

/* Datatypes. */
extern struct rmpl_mpi_datatype rmpl_mpi_char, rmpl_mpi_signed_char, rmpl_mpi_unsigned_char,
    rmpl_mpi_byte, rmpl_mpi_wchar, rmpl_mpi_short, rmpl_mpi_unsigned_short, rmpl_mpi_int,
    rmpl_mpi_unsigned, rmpl_mpi_long, rmpl_mpi_unsigned_long, rmpl_mpi_long_long,
    rmpl_mpi_unsigned_long_long, rmpl_mpi_float, rmpl_mpi_double, rmpl_mpi_long_double,
    rmpl_mpi_int8_t, rmpl_mpi_int16_t, rmpl_mpi_int32_t, rmpl_mpi_int64_t, rmpl_mpi_uint8_t,
    rmpl_mpi_uint16_t, rmpl_mpi_uint32_t, rmpl_mpi_uint64_t, rmpl_mpi_c_bool, rmpl_mpi_aint,
    rmpl_mpi_offset, rmpl_mpi_count, rmpl_mpi_packed, rmpl_mpi_float_int, rmpl_mpi_double_int,
    rmpl_mpi_long_int, rmpl_mpi_2int, rmpl_mpi_short_int, rmpl_mpi_long_double_int,
    rmpl_mpi_c_float_complex, rmpl_mpi_c_double_complex, rmpl_mpi_c_long_double_complex,
    rmpl_mpi_cxx_bool, rmpl_mpi_lb, rmpl_mpi_ub;
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_char)
#define MPI_SIGNED_CHAR RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_signed_char)
#define MPI_UNSIGNED_CHAR RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_unsigned_char)
#define MPI_BYTE RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_byte)
#define MPI_WCHAR RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_wchar)
#define MPI_SHORT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_short)
#define MPI_UNSIGNED_SHORT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_unsigned_short)
#define MPI_INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_int)
#define MPI_UNSIGNED RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_unsigned)
#define MPI_LONG RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_long)
#define MPI_UNSIGNED_LONG RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_unsigned_long)
#define MPI_LONG_LONG_INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_long_long)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_unsigned_long_long)
#define MPI_FLOAT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_float)
#define MPI_DOUBLE RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_double)
#define MPI_LONG_DOUBLE RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_long_double)
#define MPI_INT8_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_int8_t)
#define MPI_INT16_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_int16_t)
#define MPI_INT32_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_int32_t)
#define MPI_INT64_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_int64_t)
#define MPI_UINT8_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_uint8_t)
#define MPI_UINT16_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_uint16_t)
#define MPI_UINT32_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_uint32_t)
#define MPI_UINT64_T RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_uint64_t)
#define MPI_C_BOOL RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_c_bool)
#define MPI_AINT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_aint)
#define MPI_OFFSET RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_offset)
#define MPI_COUNT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_count)
#define MPI_PACKED RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_packed)
#define MPI_FLOAT_INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_float_int)
#define MPI_DOUBLE_INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_double_int)
#define MPI_LONG_INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_long_int)
#define MPI_2INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_2int)
#define MPI_SHORT_INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_short_int)
#define MPI_LONG_DOUBLE_INT RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_long_double_int)
#define MPI_C_FLOAT_COMPLEX RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_c_float_complex)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_c_long_double_complex)
#define MPI_CXX_BOOL RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_cxx_bool)
#define MPI_LB RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_lb)
/* The Fortran types, usable from C (MPI-3.1 3.2.2 and 17.2.5: a Fortran default INTEGER, REAL,
 * LOGICAL are 4 bytes, DOUBLE PRECISION 8; LOGICAL holds 0 for false), the sized ones, and the C++
 * complex types. The optional types this platform has no C counterpart for (REAL2, REAL16,
 * COMPLEX4, COMPLEX32, INTEGER16) are MPI_DATATYPE_NULL, as the standard allows. */
extern struct rmpl_mpi_datatype rmpl_mpi_integer, rmpl_mpi_real, rmpl_mpi_double_precision,
    rmpl_mpi_complex, rmpl_mpi_double_complex, rmpl_mpi_logical, rmpl_mpi_character,
    rmpl_mpi_integer1, rmpl_mpi_integer2, rmpl_mpi_integer4, rmpl_mpi_integer8, rmpl_mpi_real4,
    rmpl_mpi_real8, rmpl_mpi_complex8, rmpl_mpi_complex16, rmpl_mpi_cxx_float_complex,
    rmpl_mpi_cxx_double_complex, rmpl_mpi_cxx_long_double_complex;
#define MPI_INTEGER RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_integer)
#define MPI_REAL RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_real)
#define MPI_DOUBLE_PRECISION RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_double_precision)
#define MPI_COMPLEX RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_complex)
#define MPI_DOUBLE_COMPLEX RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_double_complex)
#define MPI_LOGICAL RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_logical)
#define MPI_CHARACTER RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_character)
#define MPI_INTEGER1 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_integer1)
#define MPI_INTEGER2 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_integer2)
#define MPI_INTEGER4 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_integer4)
#define MPI_INTEGER8 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_integer8)
#define MPI_REAL4 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_real4)
#define MPI_REAL8 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_real8)
#define MPI_COMPLEX8 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_complex8)
#define MPI_COMPLEX16 RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_complex16)
#define MPI_CXX_FLOAT_COMPLEX RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX \
  RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_cxx_long_double_complex)
#define MPI_2INTEGER RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_2integer)
extern struct rmpl_mpi_datatype rmpl_mpi_2integer;
#define MPI_REAL2 MPI_DATATYPE_NULL
#define MPI_REAL16 MPI_DATATYPE_NULL
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#define MPI_INTEGER16 MPI_DATATYPE_NULL
#define MPI_UB RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_ub)

/* Operators. */
extern struct rmpl_mpi_op rmpl_mpi_max, rmpl_mpi_min, rmpl_mpi_sum, rmpl_mpi_prod, rmpl_mpi_land,
    rmpl_mpi_band, rmpl_mpi_lor, rmpl_mpi_bor, rmpl_mpi_lxor, rmpl_mpi_bxor, rmpl_mpi_minloc,
    rmpl_mpi_maxloc, rmpl_mpi_replace, rmpl_mpi_no_op;
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_max)
#define MPI_MIN RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_min)
#define MPI_SUM RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_sum)
#define MPI_PROD RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_prod)
#define MPI_LAND RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_land)
#define MPI_BAND RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_band)
#define MPI_LOR RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_lor)
#define MPI_BOR RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_bor)
#define MPI_LXOR RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_lxor)
#define MPI_BXOR RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_bxor)
#define MPI_MINLOC RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_minloc)
#define MPI_MAXLOC RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_maxloc)
#define MPI_REPLACE RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_replace)
#define MPI_NO_OP RMPL_MPI_PREDEFINED(MPI_Op, rmpl_mpi_no_op)

/* ------------------------------------------------------------------ callbacks */

typedef void MPI_User_function(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm* comm, int* error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Handler_function; /* MPI-1 name */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void* attribute_val,
                                          void* extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void* attribute_val, void* extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function; /* MPI-1 names */
typedef MPI_Comm_delete_attr_function MPI_Delete_function;

int rmpl_mpi_comm_null_copy_fn(MPI_Comm, int, void*, void*, void*, int*);
int rmpl_mpi_comm_dup_fn(MPI_Comm, int, void*, void*, void*, int*);
int rmpl_mpi_comm_null_delete_fn(MPI_Comm, int, void*, void*);
int rmpl_mpi_type_null_copy_fn(MPI_Datatype, int, void*, void*, void*, int*);
int rmpl_mpi_type_dup_fn(MPI_Datatype, int, void*, void*, void*, int*);
int rmpl_mpi_type_null_delete_fn(MPI_Datatype, int, void*, void*);
#define MPI_COMM_NULL_COPY_FN rmpl_mpi_comm_null_copy_fn
#define MPI_COMM_DUP_FN rmpl_mpi_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN rmpl_mpi_comm_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN rmpl_mpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN rmpl_mpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN rmpl_mpi_type_null_delete_fn
#define MPI_NULL_COPY_FN rmpl_mpi_comm_null_copy_fn
#define MPI_DUP_FN rmpl_mpi_comm_dup_fn
#define MPI_NULL_DELETE_FN rmpl_mpi_comm_null_delete_fn

/* ------------------------------------------------------------------ functions
 * Declared twice, as MPI_X and PMPI_X, by RMPL_MPI_FN. */

#define RMPL_MPI_FN(name, params) \
  int MPI_##name params;          \
  int PMPI_##name params;

/* Environment (src/mpi/environment.cpp) */
RMPL_MPI_FN(Init, (int* argc, char*** argv))
RMPL_MPI_FN(Init_thread, (int* argc, char*** argv, int required, int* provided))
RMPL_MPI_FN(Finalize, (void))
RMPL_MPI_FN(Initialized, (int* flag))
RMPL_MPI_FN(Finalized, (int* flag))
RMPL_MPI_FN(Query_thread, (int* provided))
RMPL_MPI_FN(Is_thread_main, (int* flag))
RMPL_MPI_FN(Abort, (MPI_Comm comm, int errorcode))
RMPL_MPI_FN(Get_processor_name, (char* name, int* resultlen))
RMPL_MPI_FN(Get_version, (int* version, int* subversion))
RMPL_MPI_FN(Get_library_version, (char* version, int* resultlen))
RMPL_MPI_FN(Pcontrol, (const int level, ...))
double MPI_Wtime(void);
double PMPI_Wtime(void);
double MPI_Wtick(void);
double PMPI_Wtick(void);

/* Errors (src/mpi/errors.cpp) */
RMPL_MPI_FN(Error_string, (int errorcode, char* string, int* resultlen))
RMPL_MPI_FN(Error_class, (int errorcode, int* errorclass))
RMPL_MPI_FN(Comm_create_errhandler,
            (MPI_Comm_errhandler_function * function, MPI_Errhandler* errhandler))
RMPL_MPI_FN(Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
RMPL_MPI_FN(Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler* errhandler))
RMPL_MPI_FN(Comm_call_errhandler, (MPI_Comm comm, int errorcode))
RMPL_MPI_FN(Errhandler_free, (MPI_Errhandler * errhandler))
RMPL_MPI_FN(Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))  /* MPI-1 */
RMPL_MPI_FN(Errhandler_get, (MPI_Comm comm, MPI_Errhandler* errhandler)) /* MPI-1 */
RMPL_MPI_FN(Add_error_class, (int* errorclass))
RMPL_MPI_FN(Add_error_code, (int errorclass, int* errorcode))
RMPL_MPI_FN(Add_error_string, (int errorcode, const char* string))
RMPL_MPI_FN(Remove_error_class, (int errorclass))
RMPL_MPI_FN(Remove_error_code, (int errorcode))
RMPL_MPI_FN(Remove_error_string, (int errorcode))

/* Point-to-point (src/mpi/point_to_point.cpp) */
RMPL_MPI_FN(Send,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
RMPL_MPI_FN(Ssend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
RMPL_MPI_FN(Bsend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
RMPL_MPI_FN(Rsend,
            (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
RMPL_MPI_FN(Recv, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Status* status))
RMPL_MPI_FN(Isend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Issend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Ibsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Irsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Irecv, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request* request))
RMPL_MPI_FN(Sendrecv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                       int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                       int recvtag, MPI_Comm comm, MPI_Status* status))
RMPL_MPI_FN(Isendrecv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                        int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                        int source, int recvtag, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Isendrecv_replace, (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                int source, int recvtag, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Sendrecv_replace, (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                               int source, int recvtag, MPI_Comm comm, MPI_Status* status))
RMPL_MPI_FN(Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status))
RMPL_MPI_FN(Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status))
RMPL_MPI_FN(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status))
RMPL_MPI_FN(Improbe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                      MPI_Status* status))
RMPL_MPI_FN(Mrecv,
            (void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status))
RMPL_MPI_FN(Imrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                     MPI_Request* request))
RMPL_MPI_FN(Buffer_attach, (void* buffer, int size))
RMPL_MPI_FN(Buffer_detach, (void* buffer_addr, int* size))
RMPL_MPI_FN(Buffer_flush, (void))
RMPL_MPI_FN(Buffer_iflush, (MPI_Request * request))
RMPL_MPI_FN(Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count))
RMPL_MPI_FN(Get_elements, (const MPI_Status* status, MPI_Datatype datatype, int* count))
RMPL_MPI_FN(Get_elements_x, (const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count))
RMPL_MPI_FN(Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count))
RMPL_MPI_FN(Status_set_elements_x, (MPI_Status * status, MPI_Datatype datatype, MPI_Count count))
RMPL_MPI_FN(Status_get_source, (const MPI_Status* status, int* source))
RMPL_MPI_FN(Status_set_source, (MPI_Status * status, int source))
RMPL_MPI_FN(Status_get_tag, (const MPI_Status* status, int* tag))
RMPL_MPI_FN(Status_set_tag, (MPI_Status * status, int tag))
RMPL_MPI_FN(Status_get_error, (const MPI_Status* status, int* error))
RMPL_MPI_FN(Status_set_error, (MPI_Status * status, int error))
RMPL_MPI_FN(Status_set_cancelled, (MPI_Status * status, int flag))
RMPL_MPI_FN(Test_cancelled, (const MPI_Status* status, int* flag))

/* Requests (src/mpi/requests.cpp) */
RMPL_MPI_FN(Send_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Ssend_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Bsend_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Rsend_init, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Recv_init, (void* buf, int count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Start, (MPI_Request * request))
RMPL_MPI_FN(Startall, (int count, MPI_Request array_of_requests[]))
RMPL_MPI_FN(Wait, (MPI_Request * request, MPI_Status* status))
RMPL_MPI_FN(Test, (MPI_Request * request, int* flag, MPI_Status* status))
RMPL_MPI_FN(Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]))
RMPL_MPI_FN(Testall,
            (int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]))
RMPL_MPI_FN(Waitany, (int count, MPI_Request array_of_requests[], int* index, MPI_Status* status))
RMPL_MPI_FN(Testany,
            (int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status))
RMPL_MPI_FN(Waitsome, (int incount, MPI_Request array_of_requests[], int* outcount,
                       int array_of_indices[], MPI_Status array_of_statuses[]))
RMPL_MPI_FN(Testsome, (int incount, MPI_Request array_of_requests[], int* outcount,
                       int array_of_indices[], MPI_Status array_of_statuses[]))
RMPL_MPI_FN(Request_get_status, (MPI_Request request, int* flag, MPI_Status* status))
RMPL_MPI_FN(Request_get_status_all, (int count, const MPI_Request array_of_requests[], int* flag,
                                     MPI_Status array_of_statuses[]))
RMPL_MPI_FN(Request_get_status_any, (int count, const MPI_Request array_of_requests[], int* index,
                                     int* flag, MPI_Status* status))
RMPL_MPI_FN(Request_get_status_some,
            (int incount, const MPI_Request array_of_requests[], int* outcount,
             int array_of_indices[], MPI_Status array_of_statuses[]))
RMPL_MPI_FN(Cancel, (MPI_Request * request))
RMPL_MPI_FN(Request_free, (MPI_Request * request))

/* Datatypes (src/mpi/datatypes.cpp) */
RMPL_MPI_FN(Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_vector,
            (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                  MPI_Datatype* newtype))
RMPL_MPI_FN(Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                           MPI_Datatype* newtype)) /* MPI-1 */
RMPL_MPI_FN(Type_indexed,
            (int count, const int array_of_blocklengths[], const int array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_create_hindexed,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_hindexed,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype)) /* MPI-1 */
RMPL_MPI_FN(Type_create_indexed_block,
            (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
             MPI_Datatype* newtype))
RMPL_MPI_FN(Type_create_hindexed_block,
            (int count, int blocklength, const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_create_struct,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             const MPI_Datatype array_of_types[], MPI_Datatype* newtype))
RMPL_MPI_FN(Type_struct,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             const MPI_Datatype array_of_types[], MPI_Datatype* newtype)) /* MPI-1 */
RMPL_MPI_FN(Type_create_subarray,
            (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_create_resized,
            (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_dup, (MPI_Datatype oldtype, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_commit, (MPI_Datatype * datatype))
RMPL_MPI_FN(Type_free, (MPI_Datatype * datatype))
RMPL_MPI_FN(Type_size, (MPI_Datatype datatype, int* size))
RMPL_MPI_FN(Type_size_x, (MPI_Datatype datatype, MPI_Count* size))
RMPL_MPI_FN(Type_get_extent, (MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent))
RMPL_MPI_FN(Type_get_extent_x, (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent))
RMPL_MPI_FN(Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent))
RMPL_MPI_FN(Type_get_true_extent_x,
            (MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent))
RMPL_MPI_FN(Type_extent, (MPI_Datatype datatype, MPI_Aint* extent))   /* MPI-1 */
RMPL_MPI_FN(Type_lb, (MPI_Datatype datatype, MPI_Aint* displacement)) /* MPI-1 */
RMPL_MPI_FN(Type_ub, (MPI_Datatype datatype, MPI_Aint* displacement)) /* MPI-1 */
RMPL_MPI_FN(Type_get_value_index,
            (MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype* pair_type))
RMPL_MPI_FN(Type_get_envelope, (MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                int* num_datatypes, int* combiner))
RMPL_MPI_FN(Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses,
                                int max_datatypes, int array_of_integers[],
                                MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
RMPL_MPI_FN(Type_set_name, (MPI_Datatype datatype, const char* type_name))
RMPL_MPI_FN(Type_get_name, (MPI_Datatype datatype, char* type_name, int* resultlen))
RMPL_MPI_FN(Type_match_size, (int typeclass, int size, MPI_Datatype* datatype))
RMPL_MPI_FN(Get_address, (const void* location, MPI_Aint* address))
RMPL_MPI_FN(Address, (void* location, MPI_Aint* address)) /* MPI-1 */
RMPL_MPI_FN(Pack, (const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                   int* position, MPI_Comm comm))
RMPL_MPI_FN(Unpack, (const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                     MPI_Datatype datatype, MPI_Comm comm))
RMPL_MPI_FN(Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int* size))
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* Collectives (src/mpi/collectives.cpp) */
RMPL_MPI_FN(Barrier, (MPI_Comm comm))
RMPL_MPI_FN(Ibarrier, (MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
RMPL_MPI_FN(Ibcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Request* request))
RMPL_MPI_FN(Reduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm))
RMPL_MPI_FN(Ireduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Allreduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm))
RMPL_MPI_FN(Iallreduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Reduce_local,
            (const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
RMPL_MPI_FN(Scan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm))
RMPL_MPI_FN(Iscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Exscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm))
RMPL_MPI_FN(Iexscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Reduce_scatter, (const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
RMPL_MPI_FN(Ireduce_scatter,
            (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Reduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
RMPL_MPI_FN(Ireduce_scatter_block,
            (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Gather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
RMPL_MPI_FN(Igather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Gatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm))
RMPL_MPI_FN(Igatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Scatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
RMPL_MPI_FN(Iscatter,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Scatterv,
            (const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
RMPL_MPI_FN(Iscatterv, (const void* sendbuf, const int sendcounts[], const int displs[],
                        MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Iallgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Allgatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Iallgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Ialltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Alltoallv, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Ialltoallv,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Alltoallw, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
RMPL_MPI_FN(Ialltoallw, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                         const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                         MPI_Request* request))

/* Operators (src/mpi/operators.cpp) */
RMPL_MPI_FN(Op_create, (MPI_User_function * user_fn, int commute, MPI_Op* op))
RMPL_MPI_FN(Op_free, (MPI_Op * op))
RMPL_MPI_FN(Op_commutative, (MPI_Op op, int* commute))

/* Groups (src/mpi/groups.cpp) */
RMPL_MPI_FN(Group_size, (MPI_Group group, int* size))
RMPL_MPI_FN(Group_rank, (MPI_Group group, int* rank))
RMPL_MPI_FN(Group_translate_ranks,
            (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
RMPL_MPI_FN(Group_compare, (MPI_Group group1, MPI_Group group2, int* result))
RMPL_MPI_FN(Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
RMPL_MPI_FN(Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
RMPL_MPI_FN(Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup))
RMPL_MPI_FN(Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))
RMPL_MPI_FN(Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup))
RMPL_MPI_FN(Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))
RMPL_MPI_FN(Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup))
RMPL_MPI_FN(Group_free, (MPI_Group * group))

/* Communicators (src/mpi/communicators.cpp) */
RMPL_MPI_FN(Comm_size, (MPI_Comm comm, int* size))
RMPL_MPI_FN(Comm_rank, (MPI_Comm comm, int* rank))
RMPL_MPI_FN(Comm_group, (MPI_Comm comm, MPI_Group* group))
RMPL_MPI_FN(Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result))
RMPL_MPI_FN(Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm))
RMPL_MPI_FN(Comm_idup, (MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request))
RMPL_MPI_FN(Comm_idup_with_info,
            (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request))
RMPL_MPI_FN(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm))
RMPL_MPI_FN(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm))
RMPL_MPI_FN(Comm_split_type,
            (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm))
RMPL_MPI_FN(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm))
RMPL_MPI_FN(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm))
RMPL_MPI_FN(Comm_free, (MPI_Comm * comm))
RMPL_MPI_FN(Comm_set_name, (MPI_Comm comm, const char* comm_name))
RMPL_MPI_FN(Comm_get_name, (MPI_Comm comm, char* comm_name, int* resultlen))
RMPL_MPI_FN(Comm_test_inter, (MPI_Comm comm, int* flag))
RMPL_MPI_FN(Comm_remote_size, (MPI_Comm comm, int* size))
RMPL_MPI_FN(Comm_remote_group, (MPI_Comm comm, MPI_Group* group))
RMPL_MPI_FN(Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                               int remote_leader, int tag, MPI_Comm* newintercomm))
RMPL_MPI_FN(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm))
RMPL_MPI_FN(Comm_set_info, (MPI_Comm comm, MPI_Info info))
RMPL_MPI_FN(Comm_get_info, (MPI_Comm comm, MPI_Info* info_used))

/* Attribute caching (src/mpi/attributes.cpp) */
RMPL_MPI_FN(Comm_create_keyval, (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
                                 MPI_Comm_delete_attr_function* comm_delete_attr_fn,
                                 int* comm_keyval, void* extra_state))
RMPL_MPI_FN(Comm_free_keyval, (int* comm_keyval))
RMPL_MPI_FN(Comm_set_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val))
RMPL_MPI_FN(Comm_get_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag))
RMPL_MPI_FN(Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
RMPL_MPI_FN(Keyval_create, (MPI_Copy_function * copy_fn, MPI_Delete_function* delete_fn,
                            int* keyval, void* extra_state))                       /* MPI-1 */
RMPL_MPI_FN(Keyval_free, (int* keyval))                                            /* MPI-1 */
RMPL_MPI_FN(Attr_put, (MPI_Comm comm, int keyval, void* attribute_val))            /* MPI-1 */
RMPL_MPI_FN(Attr_get, (MPI_Comm comm, int keyval, void* attribute_val, int* flag)) /* MPI-1 */
RMPL_MPI_FN(Attr_delete, (MPI_Comm comm, int keyval))                              /* MPI-1 */
RMPL_MPI_FN(Type_create_keyval, (MPI_Type_copy_attr_function * type_copy_attr_fn,
                                 MPI_Type_delete_attr_function* type_delete_attr_fn,
                                 int* type_keyval, void* extra_state))
RMPL_MPI_FN(Type_free_keyval, (int* type_keyval))
RMPL_MPI_FN(Type_set_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val))
RMPL_MPI_FN(Type_get_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag))
RMPL_MPI_FN(Type_delete_attr, (MPI_Datatype datatype, int type_keyval))

/* Cartesian topologies (src/mpi/topology.cpp) */
RMPL_MPI_FN(Dims_create, (int nnodes, int ndims, int dims[]))
RMPL_MPI_FN(Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                          int reorder, MPI_Comm* comm_cart))
RMPL_MPI_FN(Cartdim_get, (MPI_Comm comm, int* ndims))
RMPL_MPI_FN(Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
RMPL_MPI_FN(Cart_rank, (MPI_Comm comm, const int coords[], int* rank))
RMPL_MPI_FN(Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
RMPL_MPI_FN(Cart_shift, (MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest))
RMPL_MPI_FN(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm))
RMPL_MPI_FN(Cart_map,
            (MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank))
RMPL_MPI_FN(Topo_test, (MPI_Comm comm, int* status))

/* Graph and distributed graph topologies (src/mpi/graph.cpp) */
RMPL_MPI_FN(Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                           int reorder, MPI_Comm* comm_graph))
RMPL_MPI_FN(Graphdims_get, (MPI_Comm comm, int* nnodes, int* nedges))
RMPL_MPI_FN(Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
RMPL_MPI_FN(Graph_neighbors_count, (MPI_Comm comm, int rank, int* nneighbors))
RMPL_MPI_FN(Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
RMPL_MPI_FN(Graph_map,
            (MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank))
RMPL_MPI_FN(Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
             int outdegree, const int destinations[], const int destweights[], MPI_Info info,
             int reorder, MPI_Comm* comm_dist_graph))
RMPL_MPI_FN(Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                const int destinations[], const int weights[], MPI_Info info,
                                int reorder, MPI_Comm* comm_dist_graph))
RMPL_MPI_FN(Dist_graph_neighbors_count,
            (MPI_Comm comm, int* indegree, int* outdegree, int* weighted))
RMPL_MPI_FN(Dist_graph_neighbors,
            (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
             int destinations[], int destweights[]))

/* Neighbourhood collectives on Cartesian, graph and distributed graph communicators
 * (src/mpi/collectives.cpp) */
RMPL_MPI_FN(Neighbor_allgather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Ineighbor_allgather,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Neighbor_allgatherv,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Ineighbor_allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Neighbor_alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Ineighbor_alltoall,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Neighbor_alltoallv, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
RMPL_MPI_FN(Ineighbor_alltoallv,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request))
RMPL_MPI_FN(Neighbor_alltoallw,
            (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
RMPL_MPI_FN(Ineighbor_alltoallw,
            (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
             MPI_Request* request))

/* Persistent collectives (MPI-4.0; src/mpi/collectives.cpp): MPI_Start runs the nonblocking form
 * with these arguments; the datatypes may be freed meanwhile, the buffers and arrays not. */
RMPL_MPI_FN(Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Bcast_init, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Reduce_init, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Allreduce_init, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Scan_init, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Exscan_init, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Reduce_scatter_init,
            (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Reduce_scatter_block_init,
            (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Gather_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Gatherv_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Scatter_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                           MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Scatterv_init,
            (const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
             MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Allgather_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Allgatherv_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Alltoall_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Alltoallv_init,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Alltoallw_init, (const void* sendbuf, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Neighbor_allgather_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Neighbor_allgatherv_init,
            (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Neighbor_alltoall_init, (const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Neighbor_alltoallv_init,
            (const void* sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Neighbor_alltoallw_init,
            (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
             MPI_Request* request))

/* Partitioned point-to-point (MPI-4.0; src/mpi/partitioned.cpp) */
RMPL_MPI_FN(Psend_init, (const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Precv_init, (void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                         int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request))
RMPL_MPI_FN(Pready, (int partition, MPI_Request request))
RMPL_MPI_FN(Pready_range, (int partition_low, int partition_high, MPI_Request request))
RMPL_MPI_FN(Pready_list, (int length, const int array_of_partitions[], MPI_Request request))
RMPL_MPI_FN(Parrived, (MPI_Request request, int partition, int* flag))

/* Memory the job's peers can reach directly (src/mpi/memory.cpp) */
RMPL_MPI_FN(Alloc_mem, (MPI_Aint size, MPI_Info info, void* baseptr))
RMPL_MPI_FN(Free_mem, (void* base))

/* The datatypes of selected Fortran kinds (src/mpi/f90_types.cpp) */
RMPL_MPI_FN(Type_create_f90_integer, (int r, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_create_f90_real, (int p, int r, MPI_Datatype* newtype))
RMPL_MPI_FN(Type_create_f90_complex, (int p, int r, MPI_Datatype* newtype))

/* Info objects (src/mpi/info.cpp) */
RMPL_MPI_FN(Info_create, (MPI_Info * info))
RMPL_MPI_FN(Info_dup, (MPI_Info info, MPI_Info* newinfo))
RMPL_MPI_FN(Info_free, (MPI_Info * info))
RMPL_MPI_FN(Info_set, (MPI_Info info, const char* key, const char* value))
RMPL_MPI_FN(Info_get, (MPI_Info info, const char* key, int valuelen, char* value, int* flag))
RMPL_MPI_FN(Info_get_string, (MPI_Info info, const char* key, int* buflen, char* value, int* flag))
RMPL_MPI_FN(Info_create_env, (int argc, char* argv[], MPI_Info* info))
RMPL_MPI_FN(Info_get_valuelen, (MPI_Info info, const char* key, int* valuelen, int* flag))
RMPL_MPI_FN(Info_delete, (MPI_Info info, const char* key))
RMPL_MPI_FN(Info_get_nkeys, (MPI_Info info, int* nkeys))
RMPL_MPI_FN(Info_get_nthkey, (MPI_Info info, int n, char* key))

/* ---- Handle conversion (src/mpi/conversions.cpp), distributed arrays (datatypes.cpp), the
 * external32 representation (external32.cpp) and generalized requests (requests.cpp) ---- */

/* A C handle's Fortran value and back. f2c of a value that names no live handle gives the null
 * handle; the null handle's value is 0. */
#define RMPL_MPI_CONVERSION(Kind, Handle)    \
  MPI_Fint MPI_##Kind##_c2f(Handle handle);  \
  MPI_Fint PMPI_##Kind##_c2f(Handle handle); \
  Handle MPI_##Kind##_f2c(MPI_Fint handle);  \
  Handle PMPI_##Kind##_f2c(MPI_Fint handle);
RMPL_MPI_CONVERSION(Comm, MPI_Comm)
RMPL_MPI_CONVERSION(Type, MPI_Datatype)
RMPL_MPI_CONVERSION(Group, MPI_Group)
RMPL_MPI_CONVERSION(Request, MPI_Request)
RMPL_MPI_CONVERSION(Op, MPI_Op)
RMPL_MPI_CONVERSION(Info, MPI_Info)
RMPL_MPI_CONVERSION(Errhandler, MPI_Errhandler)
RMPL_MPI_CONVERSION(Message, MPI_Message)
#undef RMPL_MPI_CONVERSION
/* A Fortran status is MPI_F_STATUS_SIZE MPI_Fint: source, tag, error, cancelled, count (2). */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
#define MPI_F_STATUS_IGNORE ((MPI_Fint*)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint*)0)
RMPL_MPI_FN(Status_c2f, (const MPI_Status* c_status, MPI_Fint* f_status))
RMPL_MPI_FN(Status_f2c, (const MPI_Fint* f_status, MPI_Status* c_status))

RMPL_MPI_FN(Type_create_darray,
            (int size, int rank, int ndims, const int array_of_gsizes[],
             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
             int order, MPI_Datatype oldtype, MPI_Datatype* newtype))

/* datarep "external32" only (MPI-3.1 13.5.2): big-endian, the standard's size for each type. */
RMPL_MPI_FN(Pack_external,
            (const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
             void* outbuf, MPI_Aint outsize, MPI_Aint* position))
RMPL_MPI_FN(Unpack_external,
            (const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
             void* outbuf, int outcount, MPI_Datatype datatype))
RMPL_MPI_FN(Pack_external_size,
            (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size))

/* Generalized requests (MPI-3.1 12.2). MPI_Grequest_complete may be called from any thread of the
 * process, whatever the thread level: it only publishes the completion and wakes an MPI call that
 * waits for it. The callbacks run in the MPI call that invokes them as the standard says (free_fn
 * of a request freed before it completed: in MPI_Grequest_complete). */
typedef int MPI_Grequest_query_function(void* extra_state, MPI_Status* status);
typedef int MPI_Grequest_free_function(void* extra_state);
typedef int MPI_Grequest_cancel_function(void* extra_state, int complete);
RMPL_MPI_FN(Grequest_start,
            (MPI_Grequest_query_function * query_fn, MPI_Grequest_free_function* free_fn,
             MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request))
RMPL_MPI_FN(Grequest_complete, (MPI_Request request))

#undef RMPL_MPI_FN

#ifdef __cplusplus
}
#endif

#endif /* RMPL_MPI_H */
