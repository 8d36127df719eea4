/* volume_render: a sort-last parallel volume renderer, the application ACLMPL was built for (seed
 * 002, "The ACL Message Passing Library": "a renderer for volumetric data based upon Binary-Swap
 * Compositing ... each PE is responsible for rendering its own subvolume. After each PE is done,
 * the subimages are composited together").
 *
 * The volume is a procedural scalar field (a bumpy torus around a core blob, with two satellite
 * blobs, turned to a three-quarter view) over [-1,1]^3, evaluated on the fly: one ray per pixel,
 * <depth> samples along the view axis (defaults: 512x512 rays, 256 samples, so a 256^3 volume seen
 * at twice its resolution across). Rank r owns the slab of samples [r*depth/P, (r+1)*depth/P),
 * rank 0 the one nearest the viewer, and ray-casts it orthographically, front to back, into a
 * premultiplied RGBA float image: emission-absorption through a transfer function (a faint blue
 * haze, translucent teal blobs, an opaque orange torus), Lambert and Blinn-Phong shading from the
 * field's gradient where a sample is dense enough to show it, rays stopped once opaque within the
 * slab. The slab images are then composited by one MPI_Reduce to rank 0 on a contiguous 4-float
 * pixel type with the non-commutative user operator "over" (MPI_Op_create(..., commute = 0)):
 * rank order is depth order, so whatever large-reduce algorithm the library picks for a
 * non-commutative operator does the compositing. Rank 0 writes the image over a dark background
 * as an 8-bit RGB PNG (gamma 2.2).
 *
 * Timing: one untimed composite of a blank image first (so the figure is a steady frame's, not the
 * library's first-use setup), then a barrier, the render, a barrier (so the composite time is the
 * composite's, not the wait for the slowest renderer), the composite. Rank 0 prints (stdout)
 *   app,volume_render,<P>,<width>,time_s,<render + composite seconds, slowest rank>
 *   app,volume_render_composite,<P>,<width>,time_s,<composite seconds, slowest rank>
 * Then, untimed, rank 0 renders every slab itself and composites them serially; if any channel of
 * any pixel differs from the parallel composite by more than 1e-5 it prints instead
 *   check_failed,app,volume_render,<P>,<width>
 * and exits with status 1.
 *
 * Run:   rmplrun -n 4 ./volume_render [--quick] [--width W] [--depth N] [--out FILE] [--verbose]
 *        (mpirun.openmpi / mpirun.mpich the same). Defaults: 512x512, depth 256, volume.png;
 *        --quick: 128x128, depth 64. --verbose: a summary on stderr.
 * Build: CMake target volume_render, or e.g. mpicc -O3 volume_render.c -o volume_render -lpng -lm
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  float r, g, b, a; /* premultiplied by a */
} pixel;

/* ---- the scene: field, transfer function, light ---- */

/* The field's rotation to the view (about x by 35 degrees, then about y by 30): a plain
 * axis-aligned torus seen edge-on or face-on shows little of its shape. */
static double rot[3][3];

static void init_rotation(void) {
  const double deg = 3.14159265358979323846 / 180.0, ax = 35.0 * deg, ay = 30.0 * deg;
  const double rx[3][3] = {{1, 0, 0}, {0, cos(ax), -sin(ax)}, {0, sin(ax), cos(ax)}};
  const double ry[3][3] = {{cos(ay), 0, sin(ay)}, {0, 1, 0}, {-sin(ay), 0, cos(ay)}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      rot[i][j] = 0;
      for (int k = 0; k < 3; ++k) rot[i][j] += ry[i][k] * rx[k][j];
    }
}

/* exp(-q) for q >= 0, cut to 0 beyond q = 18 (below 2e-8, invisible after the transfer
 * function): most samples are far from most features, and exp is the renderer's main cost. */
static double fall(double q) {
  return q < 18.0 ? exp(-q) : 0.0;
}

static double blob(double dx, double dy, double dz, double inv_r2) {
  return fall((dx * dx + dy * dy + dz * dz) * inv_r2);
}

/* The field at view-space point p (in [-1,1]^3), values in about [0, 1]: the torus ~0.95 on its
 * core circle, the blobs 0.5-0.6, so the transfer function colours them differently. */
static double field(double px, double py, double pz) {
  const double x = rot[0][0] * px + rot[0][1] * py + rot[0][2] * pz;
  const double y = rot[1][0] * px + rot[1][1] * py + rot[1][2] * pz;
  const double z = rot[2][0] * px + rot[2][1] * py + rot[2][2] * pz;
  const double ring = sqrt(x * x + z * z);
  const double tube = ring - 0.58;
  double v = 0;
  const double d2 = tube * tube + y * y;
  if (d2 < 0.19 * 0.19 * 4.3) { /* else q^2 > 18 even for the widest tube: nothing */
    /* Eight bumps around the ring: a ripple in the tube's radius (cos 8 phi from x / ring through
     * the Chebyshev recurrence, cheaper than atan2). The profile is exp(-q^2) rather than a
     * Gaussian's exp(-q): a flat core with a steep edge, so the tube reads as a solid. */
    const double c = ring > 1e-9 ? x / ring : 1.0;
    const double c2 = 2 * c * c - 1, c4 = 2 * c2 * c2 - 1, c8 = 2 * c4 * c4 - 1;
    const double tube_r = 0.15 + 0.035 * c8, q = d2 / (tube_r * tube_r);
    v += 0.95 * fall(q * q);
  }
  v += 0.62 * blob(x, y, z, 1.0 / (0.18 * 0.18));
  v += 0.58 * blob(x - 0.5, y - 0.5, z + 0.15, 1.0 / (0.13 * 0.13));
  v += 0.56 * blob(x + 0.45, y + 0.45, z - 0.3, 1.0 / (0.15 * 0.15));
  return v;
}

static double smoothstep(double a, double b, double v) {
  double t = (v - a) / (b - a);
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return t * t * (3 - 2 * t);
}

/* Transfer function: extinction per unit length and colour of a value. Low values (the halo of
 * everything) are a faint blue haze, the blobs' range a translucent teal, the torus' core an
 * opaque orange to pale yellow. */
static double extinction(double v) {
  return 0.3 * smoothstep(0.1, 0.3, v) + 5.0 * smoothstep(0.4, 0.55, v) +
         80.0 * smoothstep(0.65, 0.8, v);
}

static void colour(double v, double rgb[3]) {
  static const double stops[][4] = {
      /* value, r, g, b */
      {0.10, 0.05, 0.10, 0.60}, {0.35, 0.04, 0.30, 0.80},  {0.50, 0.05, 0.70, 0.65},
      {0.60, 0.10, 0.80, 0.50}, {0.65, 0.90, 0.14, 0.012}, {0.85, 1.00, 0.35, 0.04},
      {1.00, 1.00, 0.75, 0.35},
  };
  const int n = (int)(sizeof stops / sizeof stops[0]);
  if (v <= stops[0][0]) {
    for (int c = 0; c < 3; ++c) rgb[c] = stops[0][c + 1];
    return;
  }
  for (int i = 1; i < n; ++i) {
    if (v <= stops[i][0]) {
      const double t = (v - stops[i - 1][0]) / (stops[i][0] - stops[i - 1][0]);
      for (int c = 0; c < 3; ++c) rgb[c] = stops[i - 1][c + 1] * (1 - t) + stops[i][c + 1] * t;
      return;
    }
  }
  for (int c = 0; c < 3; ++c) rgb[c] = stops[n - 1][c + 1];
}

/* Light from the upper left, in front (unit vectors; the viewer looks along +z). Shading is
 * computed only where a sample is dense enough to show it: the haze is lit evenly. */
static const double light[3] = {-0.48, 0.64, -0.6};
static const double halfway[3] = {-0.26833, 0.35777, -0.89443}; /* normalize(light + (0,0,-1)) */
#define GRAD_EPS 0.01
#define AMBIENT 0.25
#define DIFFUSE 0.85
#define SPECULAR 0.35

/* Every value above the transfer function's 0.1 threshold lies in this sphere: rays (or parts of
 * them) outside it are skipped. */
#define BOUND_R 0.95

/* ---- rendering ---- */

/* Ray-casts steps [s0, s1) of `depth` along z into img (width x width), front to back. */
static void render_slab(int width, int depth, int s0, int s1, pixel* img) {
  const double dz = 2.0 / depth;
  for (int j = 0; j < width; ++j) {
    const double y = 1.0 - (j + 0.5) * 2.0 / width;
    for (int i = 0; i < width; ++i) {
      const double x = -1.0 + (i + 0.5) * 2.0 / width;
      pixel* out = &img[(size_t)j * width + i];
      double acc[4] = {0, 0, 0, 0};
      const double h2 = BOUND_R * BOUND_R - x * x - y * y;
      if (h2 > 0) {
        /* Only the steps whose sample lies inside the bounding sphere. */
        const double h = sqrt(h2);
        int a = (int)ceil((-h + 1.0) / dz - 0.5), b = (int)floor((h + 1.0) / dz - 0.5) + 1;
        if (a < s0) a = s0;
        if (b > s1) b = s1;
        for (int s = a; s < b && acc[3] < 0.995; ++s) {
          const double z = -1.0 + (s + 0.5) * dz;
          const double v = field(x, y, z);
          const double sigma = extinction(v);
          if (sigma <= 0) continue;
          const double alpha = 1.0 - exp(-sigma * dz);
          double shade = AMBIENT + DIFFUSE * 0.5, spec = 0;
          if (alpha > 0.02) {
            /* Lambert and a little Blinn-Phong on the normal = -gradient (forward differences). */
            double n[3] = {v - field(x + GRAD_EPS, y, z), v - field(x, y + GRAD_EPS, z),
                           v - field(x, y, z + GRAD_EPS)};
            const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (len > 1e-12) {
              double ndl = 0, ndh = 0;
              for (int c = 0; c < 3; ++c) {
                ndl += n[c] / len * light[c];
                ndh += n[c] / len * halfway[c];
              }
              shade = AMBIENT + DIFFUSE * (ndl > 0 ? ndl : 0);
              spec = ndh > 0 ? SPECULAR * pow(ndh, 24.0) : 0;
            }
          }
          double rgb[3];
          colour(v, rgb);
          const double w = (1.0 - acc[3]) * alpha;
          for (int c = 0; c < 3; ++c) acc[c] += w * (rgb[c] * shade + spec);
          acc[3] += w;
        }
      }
      out->r = (float)acc[0];
      out->g = (float)acc[1];
      out->b = (float)acc[2];
      out->a = (float)acc[3];
    }
  }
}

/* front over back, into back. */
static void over_into(const pixel* front, pixel* back, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    const float t = 1.0f - front[k].a;
    back[k].r = front[k].r + t * back[k].r;
    back[k].g = front[k].g + t * back[k].g;
    back[k].b = front[k].b + t * back[k].b;
    back[k].a = front[k].a + t * back[k].a;
  }
}

/* The MPI operator: invec holds lower ranks, so it is in front of inoutvec. */
static void over_op(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  (void)type;
  over_into((const pixel*)invec, (pixel*)inoutvec, (size_t)*len);
}

static void slab_range(int depth, int parts, int r, int* s0, int* s1) {
  *s0 = (int)((long)depth * r / parts);
  *s1 = (int)((long)depth * (r + 1) / parts);
}

/* ---- output ---- */

/* Writes img to f (opened by the caller) and closes it. */
static int write_png(FILE* f, const char* path, const pixel* img, int width) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  unsigned char* row = malloc((size_t)width * 3);
  if (png == NULL || info == NULL || row == NULL) {
    fprintf(stderr, "volume_render: out of memory writing %s\n", path);
    png_destroy_write_struct(&png, &info);
    free(row);
    fclose(f);
    return 0;
  }
  if (setjmp(png_jmpbuf(png))) {
    fprintf(stderr, "volume_render: libpng failed writing %s\n", path);
    png_destroy_write_struct(&png, &info);
    free(row);
    fclose(f);
    return 0;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)width, 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int j = 0; j < width; ++j) {
    /* A dark vertical gradient behind the (premultiplied) image, then gamma 2.2 for display. */
    const double t = (double)j / width;
    const double bg[3] = {0.002 + 0.006 * t, 0.002 + 0.007 * t, 0.005 + 0.014 * t};
    for (int i = 0; i < width; ++i) {
      const pixel* p = &img[(size_t)j * width + i];
      const double c[3] = {p->r, p->g, p->b};
      for (int k = 0; k < 3; ++k) {
        double v = c[k] + (1.0 - p->a) * bg[k];
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        row[(size_t)i * 3 + k] = (unsigned char)lround(255.0 * pow(v, 1.0 / 2.2));
      }
    }
    png_write_row(png, row);
  }
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  free(row);
  if (fclose(f) != 0) {
    perror(path);
    return 0;
  }
  return 1;
}

/* ---- driver ---- */

static void usage(FILE* to) {
  fprintf(to,
          "usage: volume_render [--quick] [--width W] [--depth N] [--out FILE] [--verbose]\n"
          "  --width W   image W x W pixels, 8..8192 (default 512; --quick 128)\n"
          "  --depth N   field samples along the view axis, 1..8192 (default 256; --quick 64)\n"
          "  --out FILE  PNG written by rank 0 (default volume.png)\n");
}

/* Parses a whole decimal integer in [lo, hi]; 0 if `s` is not one. */
static int parse_int(const char* s, int lo, int hi, int* out) {
  char* end = NULL;
  const long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return 0;
  *out = (int)v;
  return 1;
}

static double max_over_ranks(double v) {
  double m = v;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static void* alloc_or_die(size_t bytes) {
  void* p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "volume_render: out of memory (%zu bytes)\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int width = 0, depth = 0, quick = 0, verbose = 0;
  const char* out = "volume.png";
  const char* bad = NULL;
  FILE* png_file = NULL;
  int unwritable = 0;
  for (int i = 1; i < argc && bad == NULL; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
    } else if (strcmp(a, "--verbose") == 0) {
      verbose = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      if (rank == 0) usage(stdout);
      MPI_Finalize();
      return 0;
    } else if (strcmp(a, "--width") == 0 || strcmp(a, "--depth") == 0 || strcmp(a, "--out") == 0) {
      if (i + 1 >= argc) {
        bad = a;
        if (rank == 0) fprintf(stderr, "volume_render: %s needs a value\n", a);
      } else if (strcmp(a, "--out") == 0) {
        out = argv[++i];
      } else {
        const int is_width = strcmp(a, "--width") == 0, lo = is_width ? 8 : 1;
        if (!parse_int(argv[i + 1], lo, 8192, is_width ? &width : &depth)) {
          bad = a;
          if (rank == 0)
            fprintf(stderr, "volume_render: %s wants a whole number in %d..8192, not '%s'\n", a, lo,
                    argv[i + 1]);
        }
        ++i;
      }
    } else {
      bad = a;
      if (rank == 0) fprintf(stderr, "volume_render: unknown argument '%s'\n", a);
    }
  }
  if (bad == NULL && rank == 0) {
    /* Opened now, so a path that cannot be written stops the run before it measures anything. */
    png_file = fopen(out, "wb");
    if (png_file == NULL) {
      fprintf(stderr, "volume_render: cannot write %s: %s\n", out, strerror(errno));
      unwritable = 1;
    }
  }
  int stop = bad != NULL || unwritable;
  MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (stop) {
    if (bad != NULL && rank == 0) usage(stderr);
    MPI_Finalize();
    return 2;
  }
  if (width == 0) width = quick ? 128 : 512;
  if (depth == 0) depth = quick ? 64 : 256;
  init_rotation();

  const size_t npix = (size_t)width * width;
  pixel* slab = alloc_or_die(npix * sizeof(pixel));
  pixel* image = alloc_or_die(npix * sizeof(pixel));

  MPI_Datatype pixel_type;
  MPI_Type_contiguous(4, MPI_FLOAT, &pixel_type);
  MPI_Type_commit(&pixel_type);
  MPI_Op over;
  MPI_Op_create(over_op, 0, &over);

  /* Warm-up: the same composite on a blank image, untimed. */
  memset(slab, 0, npix * sizeof(pixel));
  MPI_Reduce(slab, image, (int)npix, pixel_type, over, 0, MPI_COMM_WORLD);

  int s0 = 0, s1 = 0;
  slab_range(depth, size, rank, &s0, &s1);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  render_slab(width, depth, s0, s1, slab);
  const double t1 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  const double t2 = MPI_Wtime();
  MPI_Reduce(slab, image, (int)npix, pixel_type, over, 0, MPI_COMM_WORLD);
  const double t3 = MPI_Wtime();
  const double total = max_over_ranks(t3 - t0), composite = max_over_ranks(t3 - t2);
  const double render = max_over_ranks(t1 - t0);

  int failed = 0;
  if (rank == 0) {
    /* The reference: every slab rendered here, composited back to front. */
    pixel* ref = alloc_or_die(npix * sizeof(pixel));
    memset(ref, 0, npix * sizeof(pixel));
    for (int r = size - 1; r >= 0; --r) {
      int a = 0, b = 0;
      slab_range(depth, size, r, &a, &b);
      render_slab(width, depth, a, b, slab);
      over_into(slab, ref, npix);
    }
    double worst = 0;
    for (size_t k = 0; k < npix; ++k) {
      const float* p = &image[k].r;
      const float* q = &ref[k].r;
      for (int c = 0; c < 4; ++c) {
        const double d = fabs((double)p[c] - (double)q[c]);
        if (!(d <= worst)) worst = d; /* also catches NaN */
      }
    }
    free(ref);
    failed = !(worst <= 1e-5);
    if (failed) {
      printf("check_failed,app,volume_render,%d,%d\n", size, width);
      fprintf(stderr, "volume_render: composite differs from the serial one by %g\n", worst);
    } else {
      printf("app,volume_render,%d,%d,time_s,%.6g\n", size, width, total);
      printf("app,volume_render_composite,%d,%d,time_s,%.6g\n", size, width, composite);
    }
    fflush(stdout);
    if (verbose)
      fprintf(stderr,
              "volume_render: %d ranks, %dx%d, depth %d: render %.3f s (slowest rank), composite "
              "%.3f s, check difference %g, writing %s\n",
              size, width, width, depth, render, composite, worst, out);
    if (!write_png(png_file, out, image, width)) failed = 1;
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);

  MPI_Op_free(&over);
  MPI_Type_free(&pixel_type);
  free(slab);
  free(image);
  MPI_Finalize();
  return failed ? 1 : 0;
}
