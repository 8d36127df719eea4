// The PMIx client library, loaded when a process finds that a PMIx server started it (its
// environment names one), not linked: a job started by rmplrun, a static program and a machine
// without PMIx pay nothing for it, and librmpl and libmpi keep the dependencies they had. The
// declarations come from Debian's libpmix-dev headers; the functions from libpmix.so.2 through this
// table. Include it instead of <pmix.h>: after PMIx's declarations it points their names (which
// PMIx's own macros, PMIX_VALUE_RELEASE and the like, expand to) at the table.
#pragma once

#include <pmix.h>

namespace rmpl::runtime::pmix {

struct library {
// clang-format off
#define RMPL_PMIX_FUNCTIONS(X) \
  X(PMIx_Init) \
  X(PMIx_Finalize) \
  X(PMIx_Get) \
  X(PMIx_Put) \
  X(PMIx_Commit) \
  X(PMIx_Fence) \
  X(PMIx_Fence_nb) \
  X(PMIx_Error_string) \
  X(PMIx_Info_load) \
  X(PMIx_Value_destruct)
// clang-format on
#define RMPL_PMIX_MEMBER(name) decltype(&::name) name = nullptr;
  RMPL_PMIX_FUNCTIONS(RMPL_PMIX_MEMBER)
#undef RMPL_PMIX_MEMBER

  /// The library, loaded on first call. Throws rmpl::error naming what is missing.
  static const library& get();
};

}  // namespace rmpl::runtime::pmix

#ifndef RMPL_PMIX_LOADING  // library.cpp, which loads the table, uses the names themselves
#define PMIx_Init ::rmpl::runtime::pmix::library::get().PMIx_Init
#define PMIx_Finalize ::rmpl::runtime::pmix::library::get().PMIx_Finalize
#define PMIx_Get ::rmpl::runtime::pmix::library::get().PMIx_Get
#define PMIx_Put ::rmpl::runtime::pmix::library::get().PMIx_Put
#define PMIx_Commit ::rmpl::runtime::pmix::library::get().PMIx_Commit
#define PMIx_Fence ::rmpl::runtime::pmix::library::get().PMIx_Fence
#define PMIx_Fence_nb ::rmpl::runtime::pmix::library::get().PMIx_Fence_nb
#define PMIx_Error_string ::rmpl::runtime::pmix::library::get().PMIx_Error_string
#define PMIx_Info_load ::rmpl::runtime::pmix::library::get().PMIx_Info_load
#define PMIx_Value_destruct ::rmpl::runtime::pmix::library::get().PMIx_Value_destruct
#endif
