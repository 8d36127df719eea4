/* Derived datatypes: size, bounds and true bounds of every constructor against values worked out
 * by hand, the envelope and contents of each, freeing types other types were built from, the
 * error classes of bad arguments, and a ring exchange of a vector and a struct type that checks
 * every byte received and that the gaps of the receive buffer stay untouched. */
#include <stddef.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* The size, lb, extent, true lb and true extent of `t` must be these. */
static void expect_layout(int line, MPI_Datatype t, MPI_Count sz, MPI_Aint lb, MPI_Aint extent,
                          MPI_Aint true_lb, MPI_Aint true_extent) {
  MPI_Count size_x = -1, lb_x = -1, extent_x = -1;
  MPI_Aint got_lb = -1, got_extent = -1, got_true_lb = -1, got_true_extent = -1;
  int size_int = -1;
  CHECK_MPI(MPI_Type_size_x(t, &size_x));
  CHECK_MPI(MPI_Type_size(t, &size_int));
  CHECK_MPI(MPI_Type_get_extent(t, &got_lb, &got_extent));
  CHECK_MPI(MPI_Type_get_extent_x(t, &lb_x, &extent_x));
  CHECK_MPI(MPI_Type_get_true_extent(t, &got_true_lb, &got_true_extent));
  CHECK(size_x == sz && size_int == (int)sz, "line %d: size %lld (int %d), expected %lld", line,
        size_x, size_int, sz);
  CHECK(got_lb == lb && got_extent == extent && lb_x == lb && extent_x == extent,
        "line %d: lb %ld extent %ld, expected lb %ld extent %ld", line, (long)got_lb,
        (long)got_extent, (long)lb, (long)extent);
  CHECK(got_true_lb == true_lb && got_true_extent == true_extent,
        "line %d: true lb %ld true extent %ld, expected %ld and %ld", line, (long)got_true_lb,
        (long)got_true_extent, (long)true_lb, (long)true_extent);
  MPI_Aint old_extent = -1, old_lb = -1, old_ub = -1;
  CHECK_MPI(MPI_Type_extent(t, &old_extent));
  CHECK_MPI(MPI_Type_lb(t, &old_lb));
  CHECK_MPI(MPI_Type_ub(t, &old_ub));
  CHECK(old_extent == extent && old_lb == lb && old_ub == lb + extent,
        "line %d: MPI-1 extent %ld lb %ld ub %ld", line, (long)old_extent, (long)old_lb,
        (long)old_ub);
}
#define EXPECT_LAYOUT(...) expect_layout(__LINE__, __VA_ARGS__)

/* The envelope of `t` must be this combiner with these counts, and its contents these values. */
static void expect_contents(int line, MPI_Datatype t, int combiner, int ni, const int* ints, int na,
                            const MPI_Aint* addrs, int nd, const MPI_Datatype* types) {
  int got_ni = -1, got_na = -1, got_nd = -1, got_combiner = -1;
  CHECK_MPI(MPI_Type_get_envelope(t, &got_ni, &got_na, &got_nd, &got_combiner));
  CHECK(got_combiner == combiner && got_ni == ni && got_na == na && got_nd == nd,
        "line %d: envelope combiner %d (%d ints, %d addresses, %d types), expected %d (%d, %d, "
        "%d)",
        line, got_combiner, got_ni, got_na, got_nd, combiner, ni, na, nd);
  int got_ints[64];
  MPI_Aint got_addrs[64];
  MPI_Datatype got_types[64];
  CHECK_MPI(MPI_Type_get_contents(t, 64, 64, 64, got_ints, got_addrs, got_types));
  for (int i = 0; i < ni; ++i) {
    CHECK(got_ints[i] == ints[i], "line %d: integer %d is %d, expected %d", line, i, got_ints[i],
          ints[i]);
  }
  for (int i = 0; i < na; ++i) {
    CHECK(got_addrs[i] == addrs[i], "line %d: address %d is %ld, expected %ld", line, i,
          (long)got_addrs[i], (long)addrs[i]);
  }
  for (int i = 0; i < nd; ++i) {
    /* Predefined types come back as they are; derived ones as new handles equal to them. */
    if (types[i] == MPI_INT || types[i] == MPI_DOUBLE || types[i] == MPI_CHAR ||
        types[i] == MPI_LB || types[i] == MPI_UB) {
      CHECK(got_types[i] == types[i], "line %d: type %d is not the predefined type given", line, i);
    } else {
      CHECK(got_types[i] != types[i], "line %d: type %d is the handle itself, not a new one", line,
            i);
      MPI_Count a = -1, b = -2;
      MPI_Aint lb1, ext1, lb2, ext2;
      CHECK_MPI(MPI_Type_size_x(got_types[i], &a));
      CHECK_MPI(MPI_Type_size_x(types[i], &b));
      CHECK_MPI(MPI_Type_get_extent(got_types[i], &lb1, &ext1));
      CHECK_MPI(MPI_Type_get_extent(types[i], &lb2, &ext2));
      CHECK(a == b && lb1 == lb2 && ext1 == ext2, "line %d: returned type %d differs", line, i);
      CHECK_MPI(MPI_Type_free(&got_types[i]));
    }
  }
}
#define EXPECT_CONTENTS(...) expect_contents(__LINE__, __VA_ARGS__)

static void predefined_types(void) {
  struct di {
    double d;
    int i;
  };
  struct si {
    short s;
    int i;
  };
  EXPECT_LAYOUT(MPI_INT, 4, 0, 4, 0, 4);
  EXPECT_LAYOUT(MPI_DOUBLE, 8, 0, 8, 0, 8);
  EXPECT_LAYOUT(MPI_CHAR, 1, 0, 1, 0, 1);
  EXPECT_LAYOUT(MPI_LONG_DOUBLE, sizeof(long double), 0, sizeof(long double), 0,
                sizeof(long double));
  EXPECT_LAYOUT(MPI_DOUBLE_INT, 12, 0, sizeof(struct di), 0, offsetof(struct di, i) + 4);
  EXPECT_LAYOUT(MPI_SHORT_INT, 6, 0, sizeof(struct si), 0, offsetof(struct si, i) + 4);
  EXPECT_LAYOUT(MPI_2INT, 8, 0, 8, 0, 8);
  EXPECT_LAYOUT(MPI_C_DOUBLE_COMPLEX, 16, 0, 16, 0, 16);
  EXPECT_LAYOUT(MPI_LB, 0, 0, 0, 0, 0);
  EXPECT_LAYOUT(MPI_UB, 0, 0, 0, 0, 0);

  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Type_get_name(MPI_INT, name, &len));
  CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "MPI_INT is named '%s' (%d)", name, len);
  CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len));
  CHECK(strcmp(name, "MPI_DOUBLE_INT") == 0, "MPI_DOUBLE_INT is named '%s'", name);

  int ni, na, nd, combiner;
  CHECK_MPI(MPI_Type_get_envelope(MPI_FLOAT, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
        "MPI_FLOAT's envelope: combiner %d", combiner);

  MPI_Datatype matched = MPI_DATATYPE_NULL;
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &matched));
  CHECK(matched == MPI_DOUBLE, "MPI_Type_match_size(REAL, 8) is not MPI_DOUBLE");
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &matched));
  CHECK(matched == MPI_INT, "MPI_Type_match_size(INTEGER, 4) is not MPI_INT");
  CHECK_ERR(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &matched), MPI_ERR_ARG);
}

static void constructors(void) {
  MPI_Datatype t, u;

  CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &t));
  EXPECT_LAYOUT(t, 24, 0, 24, 0, 24);
  {
    int ints[] = {3};
    MPI_Datatype types[] = {MPI_DOUBLE};
    EXPECT_CONTENTS(t, MPI_COMBINER_CONTIGUOUS, 1, ints, 0, NULL, 1, types);
  }
  CHECK_MPI(MPI_Type_free(&t));
  CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not set the handle to MPI_DATATYPE_NULL");

  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
  EXPECT_LAYOUT(t, 0, 0, 0, 0, 0);
  CHECK_MPI(MPI_Type_free(&t));

  /* 3 blocks of 2 ints, 4 ints apart: the last block ends at (2 * 4 + 2) ints. */
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
  EXPECT_LAYOUT(t, 24, 0, 40, 0, 40);
  {
    int ints[] = {3, 2, 4};
    MPI_Datatype types[] = {MPI_INT};
    EXPECT_CONTENTS(t, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, types);
  }
  CHECK_MPI(MPI_Type_free(&t));

  /* Negative stride: blocks at 0, -8 and -16 bytes. */
  CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_INT, &t));
  EXPECT_LAYOUT(t, 12, -16, 20, -16, 20);
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_create_hvector(2, 3, 20, MPI_SHORT, &t));
  EXPECT_LAYOUT(t, 12, 0, 26, 0, 26);
  {
    int ints[] = {2, 3};
    MPI_Aint addrs[] = {20};
    MPI_Datatype types[] = {MPI_SHORT};
    int ni, na, nd, combiner;
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_HVECTOR && ni == 2 && na == 1 && nd == 1, "hvector envelope");
    int gi[2];
    MPI_Aint ga[1];
    MPI_Datatype gt[1];
    CHECK_MPI(MPI_Type_get_contents(t, 2, 1, 1, gi, ga, gt));
    CHECK(gi[0] == ints[0] && gi[1] == ints[1] && ga[0] == addrs[0] && gt[0] == types[0],
          "hvector contents %d %d %ld", gi[0], gi[1], (long)ga[0]);
    /* Arrays too small for the contents. */
    CHECK_ERR(MPI_Type_get_contents(t, 1, 1, 1, gi, ga, gt), MPI_ERR_ARG);
  }
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_hvector(2, 1, -12, MPI_INT, &t));
  EXPECT_LAYOUT(t, 8, -12, 16, -12, 16);
  CHECK_MPI(MPI_Type_free(&t));

  {
    int bl[] = {2, 1, 3}, disp[] = {5, 0, 10};
    CHECK_MPI(MPI_Type_indexed(3, bl, disp, MPI_INT, &t));
    EXPECT_LAYOUT(t, 24, 0, 52, 0, 52);
    int ints[] = {3, 2, 1, 3, 5, 0, 10};
    MPI_Datatype types[] = {MPI_INT};
    EXPECT_CONTENTS(t, MPI_COMBINER_INDEXED, 7, ints, 0, NULL, 1, types);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    int bl[] = {1, 2}, disp[] = {-3, 2};
    CHECK_MPI(MPI_Type_indexed(2, bl, disp, MPI_DOUBLE, &t));
    EXPECT_LAYOUT(t, 24, -24, 56, -24, 56);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    int bl[] = {1, 1};
    MPI_Aint disp[] = {12, -4};
    CHECK_MPI(MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &t));
    EXPECT_LAYOUT(t, 8, -4, 20, -4, 20);
    int ints[] = {2, 1, 1};
    MPI_Datatype types[] = {MPI_INT};
    EXPECT_CONTENTS(t, MPI_COMBINER_HINDEXED, 3, ints, 2, disp, 1, types);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_hindexed(2, bl, disp, MPI_INT, &t));
    EXPECT_LAYOUT(t, 8, -4, 20, -4, 20);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    int disp[] = {4, 0, 8};
    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, disp, MPI_FLOAT, &t));
    EXPECT_LAYOUT(t, 24, 0, 40, 0, 40);
    CHECK_MPI(MPI_Type_free(&t));
    MPI_Aint hdisp[] = {0, 100};
    CHECK_MPI(MPI_Type_create_hindexed_block(2, 1, hdisp, MPI_DOUBLE, &t));
    EXPECT_LAYOUT(t, 16, 0, 108, 0, 108);
    int ints[] = {2, 1};
    MPI_Datatype types[] = {MPI_DOUBLE};
    EXPECT_CONTENTS(t, MPI_COMBINER_HINDEXED_BLOCK, 2, ints, 2, hdisp, 1, types);
    CHECK_MPI(MPI_Type_free(&t));
  }

  /* Structs: the extent is padded to the alignment of the most-aligned member, like C's. */
  {
    struct cd {
      char c;
      double d;
    };
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, offsetof(struct cd, d)};
    MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
    EXPECT_LAYOUT(t, 9, 0, sizeof(struct cd), 0, 16);
    int ints[] = {2, 1, 1};
    EXPECT_CONTENTS(t, MPI_COMBINER_STRUCT, 3, ints, 2, disp, 2, types);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    struct dc {
      double d;
      char c;
    };
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, offsetof(struct dc, c)};
    MPI_Datatype types[] = {MPI_DOUBLE, MPI_CHAR};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
    EXPECT_LAYOUT(t, 9, 0, sizeof(struct dc), 0, 9);

    /* A vector of that struct: blocks at 0 and 2 * 16 bytes, each one struct (data 9 bytes). */
    CHECK_MPI(MPI_Type_vector(2, 1, 2, t, &u));
    EXPECT_LAYOUT(u, 18, 0, 48, 0, 41);
    int ints[] = {2, 1, 2};
    MPI_Datatype vtypes[] = {t};
    EXPECT_CONTENTS(u, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, vtypes);
    CHECK_MPI(MPI_Type_free(&u));
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    int bl[] = {3};
    MPI_Aint disp[] = {0};
    MPI_Datatype types[] = {MPI_CHAR};
    CHECK_MPI(MPI_Type_create_struct(1, bl, disp, types, &t));
    EXPECT_LAYOUT(t, 3, 0, 3, 0, 3);
    CHECK_MPI(MPI_Type_free(&t));
  }
  /* MPI-1 markers: MPI_LB and MPI_UB set the bounds, whatever the data. */
  {
    int bl[] = {1, 1, 1, 1};
    MPI_Aint disp[] = {-4, 0, 8, 20};
    MPI_Datatype types[] = {MPI_LB, MPI_INT, MPI_INT, MPI_UB};
    CHECK_MPI(MPI_Type_struct(4, bl, disp, types, &t));
    EXPECT_LAYOUT(t, 8, -4, 24, 0, 12);
    int ints[] = {4, 1, 1, 1, 1};
    EXPECT_CONTENTS(t, MPI_COMBINER_STRUCT, 5, ints, 4, disp, 4, types);
    /* The markers stay in force in a type built from it: 2 elements 24 bytes apart. */
    CHECK_MPI(MPI_Type_contiguous(2, t, &u));
    EXPECT_LAYOUT(u, 16, -4, 48, 0, 36);
    CHECK_MPI(MPI_Type_free(&u));
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, 32};
    MPI_Datatype types[] = {MPI_DOUBLE, MPI_UB};
    CHECK_MPI(MPI_Type_struct(2, bl, disp, types, &t));
    EXPECT_LAYOUT(t, 8, 0, 32, 0, 8);
    CHECK_MPI(MPI_Type_free(&t));
  }

  /* Resized: lb -2, extent 10 around one int; two of them are 10 bytes apart. */
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, -2, 10, &t));
  EXPECT_LAYOUT(t, 4, -2, 10, 0, 4);
  {
    MPI_Aint addrs[] = {-2, 10};
    MPI_Datatype types[] = {MPI_INT};
    EXPECT_CONTENTS(t, MPI_COMBINER_RESIZED, 0, NULL, 2, addrs, 1, types);
  }
  CHECK_MPI(MPI_Type_contiguous(2, t, &u));
  EXPECT_LAYOUT(u, 8, -2, 20, 0, 14);
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_free(&t));

  /* Subarrays: 2x3 out of 4x5 ints starting at (1, 2). */
  {
    int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
    /* C order: element (i, j) at i * 5 + j; from (1, 2) = 7 to (2, 4) = 14. */
    EXPECT_LAYOUT(t, 24, 0, 80, 7 * 4, 8 * 4);
    int ints[] = {2, 4, 5, 2, 3, 1, 2, MPI_ORDER_C};
    MPI_Datatype types[] = {MPI_INT};
    EXPECT_CONTENTS(t, MPI_COMBINER_SUBARRAY, 8, ints, 0, NULL, 1, types);
    CHECK_MPI(MPI_Type_free(&t));
    /* Fortran order: element (i, j) at i + 4 * j; from (1, 2) = 9 to (2, 4) = 18. */
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
    EXPECT_LAYOUT(t, 24, 0, 80, 9 * 4, 10 * 4);
    CHECK_MPI(MPI_Type_free(&t));
  }

  /* Dup: same layout, combiner DUP naming the original. */
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &t));
  CHECK_MPI(MPI_Type_dup(t, &u));
  EXPECT_LAYOUT(u, 16, 0, 32, 0, 32);
  {
    MPI_Datatype types[] = {t};
    EXPECT_CONTENTS(u, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, types);
  }
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_free(&t));

  /* Names of derived types. */
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  {
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK(len == 0 && name[0] == '\0', "a new type is named '%s'", name);
    CHECK_MPI(MPI_Type_set_name(t, "pair of ints"));
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, "pair of ints") == 0 && len == 12, "the type is named '%s'", name);
  }
  CHECK_MPI(MPI_Type_free(&t));

  /* More than INT_MAX bytes: MPI_Type_size says MPI_UNDEFINED, MPI_Type_size_x the size. */
  CHECK_MPI(MPI_Type_contiguous(1 << 16, MPI_CHAR, &t));
  CHECK_MPI(MPI_Type_contiguous(1 << 16, t, &u));
  {
    int small = 0;
    MPI_Count big = 0;
    CHECK_MPI(MPI_Type_size(u, &small));
    CHECK_MPI(MPI_Type_size_x(u, &big));
    CHECK(small == MPI_UNDEFINED && big == (MPI_Count)1 << 32, "size %d / %lld", small, big);
  }
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_free(&t));

  /* A vector whose blocks abut is one run, however many: 2^27 blocks of 2 chars. */
  CHECK_MPI(MPI_Type_vector(1 << 27, 2, 2, MPI_CHAR, &t));
  EXPECT_LAYOUT(t, (MPI_Count)1 << 28, 0, (MPI_Aint)1 << 28, 0, (MPI_Aint)1 << 28);
  CHECK_MPI(MPI_Type_free(&t));
  /* A vector of more separate runs than the layer lists is described as one block repeated... */
  CHECK_MPI(MPI_Type_vector((1 << 26) + 1, 1, 2, MPI_CHAR, &t));
  EXPECT_LAYOUT(t, ((MPI_Count)1 << 26) + 1, 0, (MPI_Aint)1 << 27 | 1, 0, (MPI_Aint)1 << 27 | 1);
  /* ...but a type that would list them all (two such vectors side by side) is refused, not a
   * crash. */
  {
    MPI_Datatype two = MPI_DATATYPE_NULL;
    CHECK_ERR(MPI_Type_contiguous(2, t, &two), MPI_ERR_NO_MEM);
  }
  CHECK_MPI(MPI_Type_free(&t));

  /* Addresses. */
  {
    double a[4];
    MPI_Aint a0, a3;
    CHECK_MPI(MPI_Get_address(&a[0], &a0));
    CHECK_MPI(MPI_Get_address(&a[3], &a3));
    CHECK(MPI_Aint_diff(a3, a0) == 24, "MPI_Aint_diff %ld", (long)MPI_Aint_diff(a3, a0));
    CHECK(MPI_Aint_add(a0, 24) == a3, "MPI_Aint_add");
  }
}

/* A type built from another keeps working after the other is freed; its contents still
 * describe the freed type. */
static void free_components(void) {
  MPI_Datatype v, s;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
  int bl[] = {1, 1};
  MPI_Aint disp[] = {0, 16};
  MPI_Datatype types[] = {v, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &s));
  CHECK_MPI(MPI_Type_free(&v));
  CHECK_MPI(MPI_Type_commit(&s));
  EXPECT_LAYOUT(s, 16, 0, 24, 0, 24);

  int ni, na, nd, combiner;
  CHECK_MPI(MPI_Type_get_envelope(s, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_STRUCT && nd == 2, "struct envelope after freeing a part");
  int ints[3];
  MPI_Aint addrs[2];
  MPI_Datatype got[2];
  CHECK_MPI(MPI_Type_get_contents(s, 3, 2, 2, ints, addrs, got));
  CHECK(got[1] == MPI_DOUBLE, "second part is not MPI_DOUBLE");
  int vi[3];
  CHECK_MPI(MPI_Type_get_envelope(got[0], &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_VECTOR && ni == 3, "freed part: combiner %d", combiner);
  MPI_Datatype inner;
  CHECK_MPI(MPI_Type_get_contents(got[0], 3, 0, 1, vi, NULL, &inner));
  CHECK(vi[0] == 2 && vi[1] == 1 && vi[2] == 2 && inner == MPI_INT, "freed part: vector %d %d %d",
        vi[0], vi[1], vi[2]);
  EXPECT_LAYOUT(got[0], 8, 0, 12, 0, 12);
  CHECK_MPI(MPI_Type_free(&got[0]));

  /* The data still moves as the type says: ints 0 and 2, then the double at 16. */
  struct {
    int i[4];
    double d;
  } in = {{11, 12, 13, 14}, 2.5}, out;
  char packed[16];
  int position = 0;
  CHECK_MPI(MPI_Pack(&in, 1, s, packed, sizeof packed, &position, MPI_COMM_WORLD));
  CHECK(position == 16, "packed %d bytes", position);
  memset(&out, 0, sizeof out);
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, sizeof packed, &position, &out, 1, s, MPI_COMM_WORLD));
  CHECK(out.i[0] == 11 && out.i[1] == 0 && out.i[2] == 13 && out.i[3] == 0 && out.d == 2.5,
        "unpacked %d %d %d %d %g", out.i[0], out.i[1], out.i[2], out.i[3], out.d);
  CHECK_MPI(MPI_Type_free(&s));
}

/* MPI_Type_dup copies the attributes (copy callbacks), MPI_Type_free deletes them. */
static int deletions;
static int count_deletion(MPI_Datatype t, int key, void* value, void* extra) {
  (void)t, (void)key, (void)value, (void)extra;
  ++deletions;
  return MPI_SUCCESS;
}

static void attributes_follow(void) {
  int key = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, count_deletion, &key, NULL));
  MPI_Datatype t, u;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
  static int value = 42;
  CHECK_MPI(MPI_Type_set_attr(t, key, &value));
  CHECK_MPI(MPI_Type_dup(t, &u));
  void* got = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Type_get_attr(u, key, &got, &flag));
  CHECK(flag && got == &value, "the duplicate does not carry the attribute (flag %d)", flag);
  deletions = 0;
  CHECK_MPI(MPI_Type_free(&t));
  CHECK(deletions == 1, "freeing the type ran %d delete callbacks, expected 1", deletions);
  /* The duplicate outlives the original it names. */
  EXPECT_LAYOUT(u, 8, 0, 12, 0, 12);
  CHECK_MPI(MPI_Type_free(&u));
  CHECK(deletions == 2, "freeing the duplicate ran %d delete callbacks in all", deletions);
  CHECK_MPI(MPI_Type_free_keyval(&key));
}

static void bad_arguments(void) {
  MPI_Datatype t = MPI_DATATYPE_NULL, predefined = MPI_INT;
  CHECK_ERR(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_ERR(MPI_Type_free(&predefined), MPI_ERR_TYPE);
  CHECK(predefined == MPI_INT, "a failed MPI_Type_free changed the handle");
  CHECK_ERR(MPI_Type_size(MPI_DATATYPE_NULL, &(int){0}), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Type_commit(&(MPI_Datatype){MPI_DATATYPE_NULL}), MPI_ERR_TYPE);
  {
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, 8};
    MPI_Datatype types[] = {MPI_INT, MPI_DATATYPE_NULL};
    CHECK_ERR(MPI_Type_create_struct(2, bl, disp, types, &t), MPI_ERR_TYPE);
  }
  {
    int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {3, 0};
    CHECK_ERR(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    starts[0] = 0;
    CHECK_ERR(MPI_Type_create_subarray(2, sizes, subsizes, starts, 12345, MPI_INT, &t),
              MPI_ERR_ARG);
    subsizes[1] = 6;
    CHECK_ERR(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
  }
  {
    int ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    CHECK_ERR(MPI_Type_get_contents(MPI_INT, 1, 1, 1, ints, addrs, types), MPI_ERR_TYPE);
  }
  /* A freed handle is recognised as such. */
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  MPI_Datatype stale = t;
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_ERR(MPI_Type_size(stale, &(int){0}), MPI_ERR_TYPE);
  /* Uncommitted types cannot carry data. */
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  int buf[2] = {1, 2};
  CHECK_ERR(MPI_Send(buf, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&t));
}

/* ---- ring exchange: rank r sends to r + 1, receives from r - 1 ---- */

#define VECTOR_COUNT 2
/* vector(4, 2, 5) of ints: 4 blocks of 2 ints, 5 ints apart; extent 17 ints. */
static int in_vector(int index) {
  int within = index % 17;
  return index < VECTOR_COUNT * 17 && within % 5 < 2 && within < 17;
}

struct record {
  char tag;
  double value;
  short pair[2];
  int id;
};

static void ring_vector(void) {
  int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_vector(4, 2, 5, MPI_INT, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  int send[VECTOR_COUNT * 17 + 3], receive[VECTOR_COUNT * 17 + 3];
  for (int i = 0; i < VECTOR_COUNT * 17 + 3; ++i) {
    send[i] = rank * 100000 + i;
    receive[i] = -1;
  }
  MPI_Status status;
  CHECK_MPI(MPI_Sendrecv(send, VECTOR_COUNT, v, next, 7, receive, VECTOR_COUNT, v, previous, 7,
                         MPI_COMM_WORLD, &status));
  int count = -1;
  CHECK_MPI(MPI_Get_count(&status, v, &count));
  CHECK(count == VECTOR_COUNT, "received %d vectors", count);
  for (int i = 0; i < VECTOR_COUNT * 17 + 3; ++i) {
    int expected = in_vector(i) ? previous * 100000 + i : -1;
    CHECK(receive[i] == expected, "vector ring: int %d is %d, expected %d", i, receive[i],
          expected);
  }
  CHECK_MPI(MPI_Type_free(&v));
}

static void ring_struct(void) {
  int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  enum { n = 3 };
  int bl[] = {1, 1, 2, 1};
  MPI_Aint disp[] = {offsetof(struct record, tag), offsetof(struct record, value),
                     offsetof(struct record, pair), offsetof(struct record, id)};
  MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT, MPI_INT};
  MPI_Datatype s;
  CHECK_MPI(MPI_Type_create_struct(4, bl, disp, types, &s));
  CHECK_MPI(MPI_Type_commit(&s));
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(s, &lb, &extent));
  CHECK(lb == 0 && extent == sizeof(struct record), "struct extent %ld, sizeof %zu", (long)extent,
        sizeof(struct record));

  struct record send[n], receive[n];
  memset(send, 0x11, sizeof send);
  memset(receive, 0xAB, sizeof receive);
  for (int i = 0; i < n; ++i) {
    send[i].tag = (char)('a' + rank % 26);
    send[i].value = rank + i * 0.25;
    send[i].pair[0] = (short)(rank * 10 + i);
    send[i].pair[1] = (short)(-rank - i);
    send[i].id = rank * 1000 + i;
  }
  CHECK_MPI(MPI_Sendrecv(send, n, s, next, 8, receive, n, s, previous, 8, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i) {
    CHECK(receive[i].tag == (char)('a' + previous % 26), "struct ring: tag %d", receive[i].tag);
    CHECK(receive[i].value == previous + i * 0.25, "struct ring: value %g", receive[i].value);
    CHECK(receive[i].pair[0] == (short)(previous * 10 + i) &&
              receive[i].pair[1] == (short)(-previous - i),
          "struct ring: pair %d %d", receive[i].pair[0], receive[i].pair[1]);
    CHECK(receive[i].id == previous * 1000 + i, "struct ring: id %d", receive[i].id);
  }
  /* Every byte outside the members (padding) is as it was. */
  const unsigned char* bytes = (const unsigned char*)receive;
  for (size_t b = 0; b < sizeof receive; ++b) {
    size_t at = b % sizeof(struct record);
    int member = at < 1 ||
                 (at >= offsetof(struct record, value) &&
                  at < offsetof(struct record, value) + sizeof(double)) ||
                 (at >= offsetof(struct record, pair) &&
                  at < offsetof(struct record, pair) + 2 * sizeof(short)) ||
                 (at >= offsetof(struct record, id) && at < offsetof(struct record, id) + 4);
    if (!member) CHECK(bytes[b] == 0xAB, "struct ring: padding byte %zu is 0x%x", b, bytes[b]);
  }
  CHECK_MPI(MPI_Type_free(&s));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  predefined_types();
  constructors();
  free_components();
  attributes_follow();
  bad_arguments();
  ring_vector();
  ring_struct();
  MPI_Finalize();
  return 0;
}
