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
typedef struct rmpl_mpi_session* MPI_Session;
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
/* MPI-4.1: a buffer for buffered sends without bound, the library's own memory. */
#define MPI_BUFFER_AUTOMATIC ((void*)2)
#define MPI_BSEND_OVERHEAD 64

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256

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
  /* The tool information interface's return codes (MPI_T_*: they return these, never call an
   * error handler) */
  MPI_T_ERR_MEMORY,
  MPI_T_ERR_NOT_INITIALIZED,
  MPI_T_ERR_CANNOT_INIT,
  MPI_T_ERR_INVALID_INDEX,
  MPI_T_ERR_INVALID_ITEM,
  MPI_T_ERR_INVALID_HANDLE,
  MPI_T_ERR_OUT_OF_HANDLES,
  MPI_T_ERR_OUT_OF_SESSIONS,
  MPI_T_ERR_INVALID_SESSION,
  MPI_T_ERR_CVAR_SET_NOT_NOW,
  MPI_T_ERR_CVAR_SET_NEVER,
  MPI_T_ERR_PVAR_NO_STARTSTOP,
  MPI_T_ERR_PVAR_NO_WRITE,
  MPI_T_ERR_PVAR_NO_ATOMIC,
  MPI_T_ERR_INVALID_NAME,
  MPI_T_ERR_INVALID,
  MPI_T_ERR_NOT_ACCESSIBLE,
  MPI_T_ERR_NOT_SUPPORTED,
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

extern struct rmpl_mpi_errhandler rmpl_mpi_errors_are_fatal, rmpl_mpi_errors_return,
    rmpl_mpi_errors_abort;
#define MPI_ERRORS_ARE_FATAL RMPL_MPI_PREDEFINED(MPI_Errhandler, rmpl_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN RMPL_MPI_PREDEFINED(MPI_Errhandler, rmpl_mpi_errors_return)
/* MPI-4.0: ends the processes of the communicator, window, file or session; here the job, as
 * MPI_ERRORS_ARE_FATAL (a job ends whole: no process survives the others' end). */
#define MPI_ERRORS_ABORT RMPL_MPI_PREDEFINED(MPI_Errhandler, rmpl_mpi_errors_abort)
#define MPI_SESSION_NULL ((MPI_Session)0)
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
/* The MINLOC / MAXLOC pairs of Fortran types: an INTEGER and its INTEGER index, a REAL and its
 * REAL index, a DOUBLE PRECISION and its DOUBLE PRECISION index (indices integral). */
extern struct rmpl_mpi_datatype rmpl_mpi_2integer, rmpl_mpi_2real, rmpl_mpi_2double_precision;
#define MPI_2INTEGER RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_2integer)
#define MPI_2REAL RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_2real)
#define MPI_2DOUBLE_PRECISION RMPL_MPI_PREDEFINED(MPI_Datatype, rmpl_mpi_2double_precision)
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
typedef void MPI_User_function_c(void* invec, void* inoutvec, MPI_Count* len,
                                 MPI_Datatype* datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm* comm, int* error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Handler_function; /* MPI-1 name */
typedef void MPI_Session_errhandler_function(MPI_Session* session, int* error_code, ...);
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

/* A Fortran status is MPI_F_STATUS_SIZE MPI_Fint: source, tag, error, cancelled, count (2). */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
#define MPI_F_STATUS_IGNORE ((MPI_Fint*)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint*)0)

/* Generalized requests (MPI-3.1 12.2): the program's callbacks. */
typedef int MPI_Grequest_query_function(void* extra_state, MPI_Status* status);
typedef int MPI_Grequest_free_function(void* extra_state);
typedef int MPI_Grequest_cancel_function(void* extra_state, int complete);

/* ------------------------------------------------------------------ the tool information
 * interface (MPI_T, src/mpi/tool.cpp): rmpl's settings as control variables, its queues and
 * counters as performance variables; no events. */
typedef struct rmpl_mpi_t_enum* MPI_T_enum;
typedef struct rmpl_mpi_t_cvar_handle* MPI_T_cvar_handle;
typedef struct rmpl_mpi_t_pvar_handle* MPI_T_pvar_handle;
typedef struct rmpl_mpi_t_pvar_session* MPI_T_pvar_session;
typedef struct rmpl_mpi_t_event_instance* MPI_T_event_instance;
typedef struct rmpl_mpi_t_event_registration* MPI_T_event_registration;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
extern struct rmpl_mpi_t_pvar_handle rmpl_mpi_t_pvar_all_handles;
#define MPI_T_PVAR_ALL_HANDLES (&rmpl_mpi_t_pvar_all_handles)
enum {
  MPI_T_VERBOSITY_USER_BASIC = 1,
  MPI_T_VERBOSITY_USER_DETAIL,
  MPI_T_VERBOSITY_USER_ALL,
  MPI_T_VERBOSITY_TUNER_BASIC,
  MPI_T_VERBOSITY_TUNER_DETAIL,
  MPI_T_VERBOSITY_TUNER_ALL,
  MPI_T_VERBOSITY_MPIDEV_BASIC,
  MPI_T_VERBOSITY_MPIDEV_DETAIL,
  MPI_T_VERBOSITY_MPIDEV_ALL
};
enum {
  MPI_T_BIND_NO_OBJECT = 1,
  MPI_T_BIND_MPI_COMM,
  MPI_T_BIND_MPI_DATATYPE,
  MPI_T_BIND_MPI_ERRHANDLER,
  MPI_T_BIND_MPI_FILE,
  MPI_T_BIND_MPI_GROUP,
  MPI_T_BIND_MPI_OP,
  MPI_T_BIND_MPI_REQUEST,
  MPI_T_BIND_MPI_WIN,
  MPI_T_BIND_MPI_MESSAGE,
  MPI_T_BIND_MPI_INFO,
  MPI_T_BIND_MPI_SESSION
};
enum {
  MPI_T_SCOPE_CONSTANT = 1,
  MPI_T_SCOPE_READONLY,
  MPI_T_SCOPE_LOCAL,
  MPI_T_SCOPE_GROUP,
  MPI_T_SCOPE_GROUP_EQ,
  MPI_T_SCOPE_ALL,
  MPI_T_SCOPE_ALL_EQ
};
enum {
  MPI_T_PVAR_CLASS_STATE = 1,
  MPI_T_PVAR_CLASS_LEVEL,
  MPI_T_PVAR_CLASS_SIZE,
  MPI_T_PVAR_CLASS_PERCENTAGE,
  MPI_T_PVAR_CLASS_HIGHWATERMARK,
  MPI_T_PVAR_CLASS_LOWWATERMARK,
  MPI_T_PVAR_CLASS_COUNTER,
  MPI_T_PVAR_CLASS_AGGREGATE,
  MPI_T_PVAR_CLASS_TIMER,
  MPI_T_PVAR_CLASS_GENERIC
};
typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE = 0,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED,
  MPI_T_CB_REQUIRE_THREAD_SAFE,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum MPI_T_source_order {
  MPI_T_SOURCE_ORDERED = 0,
  MPI_T_SOURCE_UNORDERED
} MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void* user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void* user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void* user_data);

/* ------------------------------------------------------------------ functions
 * Generated from src/mpi/bindings/functions.spec, the one description of the bindings. */
#include "rmpl/mpi_functions.h"

#ifdef __cplusplus
}
#endif

#endif /* RMPL_MPI_H */
