// MPI_Type_create_f90_integer / _real / _complex (MPI-3.1 17.2.5): the datatype of the Fortran
// kind a program selects by decimal range and precision (SELECTED_INT_KIND, SELECTED_REAL_KIND).
// Each is this platform's type of that size (the integers of 1, 2, 4 and 8 bytes, float, double,
// long double and their complex forms), returned as its own object whose envelope is the
// standard's (combiner MPI_COMBINER_F90_*, the integers p and r as given), made once per
// distinct (p, r) and never freed: the standard calls these types predefined.
#include <cstdint>
#include <map>
#include <tuple>

#include "mpi/call.hpp"
#include "mpi/pool.hpp"

namespace rmpl::mpi {
namespace {

/// A candidate kind: its type and the decimal precision and range Fortran gives it.
struct kind {
  MPI_Datatype type;
  int precision;
  int range;
};

/// The type made for (combiner, p, r), from `base`.
MPI_Datatype made_for(int combiner, int p, int r, MPI_Datatype base) {
  static auto* made = new std::map<std::tuple<int, int, int>, MPI_Datatype>;
  // Destroyed at exit (what the objects hold is released then: the arena they live in is not
  // scanned by leak checkers); no call uses them after MPI_Finalize.
  static pool<rmpl_mpi_datatype> objects;
  auto [it, fresh] = made->try_emplace({combiner, p, r}, nullptr);
  if (fresh) {
    rmpl_mpi_datatype* t = objects.make();
    *t = *base;
    t->attributes.clear();
    t->combiner = combiner;
    t->integers = combiner == MPI_COMBINER_F90_INTEGER ? std::vector<MPI_Count>{r}
                                                       : std::vector<MPI_Count>{p, r};
    t->predefined = true;
    t->selected_from = base;
    it->second = t;
  }
  return it->second;
}

/// The first of `kinds` (smallest first) whose precision and range reach p and r
/// (MPI_UNDEFINED: any); null when none does.
template <std::size_t N>
MPI_Datatype select(const kind (&kinds)[N], int p, int r) {
  for (const kind& k : kinds) {
    if ((p == MPI_UNDEFINED || k.precision >= p) && (r == MPI_UNDEFINED || k.range >= r)) {
      return k.type;
    }
  }
  return nullptr;
}

void check_selection(int p, int r, bool with_precision) {
  if (with_precision && p == MPI_UNDEFINED && r == MPI_UNDEFINED) {
    fail(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
  }
  if ((p < 0 && p != MPI_UNDEFINED) || (r < 0 && r != MPI_UNDEFINED)) {
    fail(MPI_ERR_ARG, "p {} and r {}: a negative precision or range", p, r);
  }
}

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  if (newtype == nullptr) fail(MPI_ERR_ARG, "the new type pointer is null");
  if (r < 0) fail(MPI_ERR_ARG, "the range {} is negative", r);
  // Decimal ranges of the integers of 1, 2, 4 and 8 bytes (gfortran's kinds 1, 2, 4, 8).
  static const kind integers[] = {
      {MPI_INTEGER1, 0, 2}, {MPI_INTEGER2, 0, 4}, {MPI_INTEGER4, 0, 9}, {MPI_INTEGER8, 0, 18}};
  const MPI_Datatype base = select(integers, MPI_UNDEFINED, r);
  if (base == nullptr) fail(MPI_ERR_ARG, "no integer kind has a decimal range of {}", r);
  *newtype = made_for(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, base);
  return MPI_SUCCESS;
}

int Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  if (newtype == nullptr) fail(MPI_ERR_ARG, "the new type pointer is null");
  check_selection(p, r, true);
  static const kind reals[] = {
      {MPI_FLOAT, 6, 37}, {MPI_DOUBLE, 15, 307}, {MPI_LONG_DOUBLE, 18, 4931}};
  const MPI_Datatype base = select(reals, p, r);
  if (base == nullptr) fail(MPI_ERR_ARG, "no real kind has precision {} and range {}", p, r);
  *newtype = made_for(MPI_COMBINER_F90_REAL, p, r, base);
  return MPI_SUCCESS;
}

int Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  if (newtype == nullptr) fail(MPI_ERR_ARG, "the new type pointer is null");
  check_selection(p, r, true);
  static const kind complexes[] = {{MPI_C_FLOAT_COMPLEX, 6, 37},
                                   {MPI_C_DOUBLE_COMPLEX, 15, 307},
                                   {MPI_C_LONG_DOUBLE_COMPLEX, 18, 4931}};
  const MPI_Datatype base = select(complexes, p, r);
  if (base == nullptr) fail(MPI_ERR_ARG, "no complex kind has precision {} and range {}", p, r);
  *newtype = made_for(MPI_COMBINER_F90_COMPLEX, p, r, base);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/f90_types.inc"  // the MPI_ and PMPI_ functions (generated)
