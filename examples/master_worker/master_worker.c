/* master_worker: the master-worker pattern of PRSim, the parallel model simplification MPIN was
 * tested with (seed 004, "The MPI Implementation on NetVM", chapter 4.4: a master keeps a priority
 * queue of the leaves of an n-ary tree; each iteration it "retrieves n nodes from the priority
 * queue, where n is the number of worker nodes", sends one to each worker with a non-blocking
 * send, expands one more itself, then receives the workers' results with non-blocking receives;
 * workers use blocking calls; messages from the master are 10 to 16 KB).
 *
 * Here the tree is an adaptive refinement of a procedurally defined 3D field (a sharp spherical
 * shell, a few Gaussian blobs and a ripple) over the cube [-1,1]^3. A node is a box with the field
 * sampled on a 13..15 per axis grid: a 128-byte header and 2,535 to 3,375 floats, 10.0 to 13.3 KiB
 * on the wire. Expanding a node is real work on its data: from the samples it receives it
 * estimates the curvature along each axis and splits the box along the axes that need it (2, 4 or
 * 8 children; an axis is only halved while the box stays within 1:4 proportions), then samples
 * the field afresh on every child's grid and rates each child by how far its samples stray from
 * the trilinear interpolation of its corners (the child's priority = that error times its
 * longest side). The master starts from the root's 8 children and runs steps until the queue
 * holds the target number of leaves (a step may overshoot it by a few). In a step it pops one
 * node per worker (fewer while the queue is short), sends each with MPI_Isend and posts an
 * MPI_Irecv for each result, pops and expands one node itself while the workers compute and the
 * messages travel, inserts its own children, MPI_Waitall's, and inserts the workers' children in
 * rank order. Workers loop on blocking MPI_Recv / MPI_Send until a stop message.
 *
 * Rank 0 prints (stdout) the time from a barrier to the end of the last step (the stop messages
 * sent):
 *   app,master_worker,<P>,<target leaves>,time_s,<seconds>
 * Then, untimed, it recomputes the whole refinement alone with the same batching (P nodes per
 * step, the same order of insertion), and if the leaves differ (a checksum over every leaf's
 * bytes and the sum of the leaves' integrals of the field) prints instead
 *   check_failed,app,master_worker,<P>,<target leaves>
 * and exits with status 1. Works with P = 1 (the master alone).
 *
 * Run:   rmplrun -n 4 ./master_worker [--quick] [--leaves N] [--verbose]
 *        (mpirun.openmpi / mpirun.mpich the same). Default 4,000 leaves, --quick 160;
 *        --verbose: leaf count, expansions, message sizes and the integral on stderr.
 * Build: CMake target master_worker, or e.g. mpicc -O3 master_worker.c -o master_worker -lm */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_WORK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

#define HEADER_BYTES 128
#define N_MAX 15 /* samples per axis of a node's longest side */
#define N_MIN 13
#define MAX_CHILDREN 8

typedef struct {
  double lo[3], hi[3];
  double priority; /* larger first */
  double error;    /* largest deviation of a sample from the trilinear fit of the corners */
  uint64_t id;     /* order of insertion into the queue: breaks ties in priority */
  int32_t n[3];    /* samples per axis, corners included */
  int32_t depth;
} node_info;

/* What travels: the header, padded to a fixed size, then the samples, x fastest. */
typedef struct {
  union {
    node_info h;
    unsigned char pad[HEADER_BYTES];
  } u;
  float s[];
} node;

_Static_assert(sizeof(node_info) <= HEADER_BYTES, "the header outgrew its padding");

#define NODE_MAX_BYTES (HEADER_BYTES + N_MAX * N_MAX * N_MAX * sizeof(float))
/* Children travel packed at 8-byte boundaries (packed_bytes). */
#define RESULT_MAX_BYTES (MAX_CHILDREN * ((NODE_MAX_BYTES + 7) / 8 * 8))

static size_t samples_of(const node_info* h) {
  return (size_t)h->n[0] * (size_t)h->n[1] * (size_t)h->n[2];
}

static size_t node_bytes(const node* nd) {
  return HEADER_BYTES + samples_of(&nd->u.h) * sizeof(float);
}

/* A node's place in a result message, where children are packed one after another: rounded up
 * to 8 bytes so that every child's header (doubles) stays aligned. */
static size_t packed_bytes(size_t node_size) {
  return (node_size + 7) & ~(size_t)7;
}

static void* alloc_or_die(size_t bytes) {
  void* p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "master_worker: out of memory (%zu bytes)\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* ---- the field ---- */

static double field(double x, double y, double z) {
  const double r = sqrt(x * x + y * y + z * z);
  /* A sharp shell of radius 0.62: what makes the refinement adaptive (boxes on it stay rough). */
  const double shell = tanh((0.62 - r) * 30.0);
  const double b1 = exp(-((x - 0.3) * (x - 0.3) + (y + 0.2) * (y + 0.2) + z * z) * 18.0);
  const double b2 =
      exp(-((x + 0.45) * (x + 0.45) + (y - 0.4) * (y - 0.4) + (z - 0.3) * (z - 0.3)) * 40.0);
  const double ripple = 0.3 * sin(9.0 * x) * sin(7.0 * y + 0.5) * sin(8.0 * z) * exp(-r * r);
  return shell + 1.5 * b1 - 0.8 * b2 + ripple;
}

/* ---- expansion ---- */

static int samples_for(double extent, double longest) {
  const double ratio = extent / longest;
  return ratio >= 0.75 ? N_MAX : ratio >= 0.375 ? N_MAX - 1 : N_MIN;
}

static size_t at(const int n[3], int i, int j, int k) {
  return ((size_t)k * (size_t)n[1] + (size_t)j) * (size_t)n[0] + (size_t)i;
}

/* Fills child `c` (lo/hi and depth already set): grid, samples, error, priority. */
static void sample_child(node* c) {
  node_info* h = &c->u.h;
  double ext[3], longest = 0;
  for (int a = 0; a < 3; ++a) {
    ext[a] = h->hi[a] - h->lo[a];
    if (ext[a] > longest) longest = ext[a];
  }
  for (int a = 0; a < 3; ++a) h->n[a] = samples_for(ext[a], longest);
  const int* n = h->n;
  double step[3];
  for (int a = 0; a < 3; ++a) step[a] = ext[a] / (n[a] - 1);
  for (int k = 0; k < n[2]; ++k) {
    const double z = h->lo[2] + k * step[2];
    for (int j = 0; j < n[1]; ++j) {
      const double y = h->lo[1] + j * step[1];
      float* row = &c->s[at(n, 0, j, k)];
      for (int i = 0; i < n[0]; ++i) row[i] = (float)field(h->lo[0] + i * step[0], y, z);
    }
  }
  /* The trilinear fit of the eight corners, against every sample. */
  const float* s = c->s;
  const double c000 = s[at(n, 0, 0, 0)], c100 = s[at(n, n[0] - 1, 0, 0)];
  const double c010 = s[at(n, 0, n[1] - 1, 0)], c110 = s[at(n, n[0] - 1, n[1] - 1, 0)];
  const double c001 = s[at(n, 0, 0, n[2] - 1)], c101 = s[at(n, n[0] - 1, 0, n[2] - 1)];
  const double c011 = s[at(n, 0, n[1] - 1, n[2] - 1)];
  const double c111 = s[at(n, n[0] - 1, n[1] - 1, n[2] - 1)];
  double error = 0;
  for (int k = 0; k < n[2]; ++k) {
    const double w = (double)k / (n[2] - 1);
    for (int j = 0; j < n[1]; ++j) {
      const double v = (double)j / (n[1] - 1);
      const double e0 = (c000 * (1 - v) + c010 * v) * (1 - w) + (c001 * (1 - v) + c011 * v) * w;
      const double e1 = (c100 * (1 - v) + c110 * v) * (1 - w) + (c101 * (1 - v) + c111 * v) * w;
      const float* row = &s[at(n, 0, j, k)];
      for (int i = 0; i < n[0]; ++i) {
        const double u = (double)i / (n[0] - 1);
        const double d = fabs(row[i] - (e0 * (1 - u) + e1 * u));
        if (d > error) error = d;
      }
    }
  }
  h->error = error;
  h->priority = error * longest;
}

/* Curvature along each axis from the node's samples: the mean |second difference| scaled by the
 * squared number of intervals, which estimates how far a linear fit along that axis is off. */
static void curvature(const node* nd, double out[3]) {
  const int* n = nd->u.h.n;
  const float* s = nd->s;
  const size_t stride[3] = {1, (size_t)n[0], (size_t)n[0] * (size_t)n[1]};
  for (int a = 0; a < 3; ++a) {
    double sum = 0;
    size_t count = 0;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) {
          const int idx[3] = {i, j, k};
          if (idx[a] == 0 || idx[a] == n[a] - 1) continue;
          const size_t p = at(n, i, j, k);
          sum += fabs((double)s[p - stride[a]] - 2.0 * s[p] + s[p + stride[a]]);
          ++count;
        }
    out[a] = count ? sum / count * (double)(n[a] - 1) * (n[a] - 1) : 0;
  }
}

/* Expands `nd` into 2, 4 or 8 children packed one after another into `out` (8-byte aligned);
 * returns the bytes written. `split` forces the axes (bit a = axis a); 0 decides from the samples.
 */
static size_t expand(const node* nd, unsigned char* out, unsigned split) {
  const node_info* h = &nd->u.h;
  if (split == 0) {
    double curv[3], ext[3], longest = 0, most = 0;
    curvature(nd, curv);
    for (int a = 0; a < 3; ++a) {
      ext[a] = h->hi[a] - h->lo[a];
      if (ext[a] > longest) longest = ext[a];
      if (curv[a] > most) most = curv[a];
    }
    int longest_axis = 0;
    for (int a = 0; a < 3; ++a) {
      if (ext[a] > ext[longest_axis]) longest_axis = a;
      /* Axes at least half as curved as the worst, if halving keeps the box within 1:4. */
      if (curv[a] >= 0.5 * most && ext[a] >= 0.5 * longest * 0.999) split |= 1u << a;
    }
    if (split == 0) split = 1u << longest_axis;
  }
  int axes[3], naxes = 0;
  for (int a = 0; a < 3; ++a)
    if (split & (1u << a)) axes[naxes++] = a;
  size_t used = 0;
  for (int c = 0; c < (1 << naxes); ++c) {
    node* child = (node*)(out + used);
    memset(child->u.pad, 0, HEADER_BYTES);
    node_info* ch = &child->u.h;
    for (int a = 0; a < 3; ++a) {
      ch->lo[a] = h->lo[a];
      ch->hi[a] = h->hi[a];
    }
    for (int b = 0; b < naxes; ++b) {
      const int a = axes[b];
      const double mid = 0.5 * (h->lo[a] + h->hi[a]);
      if (c & (1 << b))
        ch->lo[a] = mid;
      else
        ch->hi[a] = mid;
    }
    ch->depth = h->depth + 1;
    sample_child(child);
    const size_t nb = node_bytes(child);
    memset(out + used + nb, 0, packed_bytes(nb) - nb);
    used += packed_bytes(nb);
  }
  return used;
}

/* ---- the priority queue (a binary max-heap on priority, then the lower id) ---- */

typedef struct {
  node** a;
  size_t size, cap;
  uint64_t next_id;
} queue;

static int before(const node* x, const node* y) {
  if (x->u.h.priority != y->u.h.priority) return x->u.h.priority > y->u.h.priority;
  return x->u.h.id < y->u.h.id;
}

static void push(queue* q, node* nd) {
  if (q->size == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 1024;
    node** grown = realloc(q->a, q->cap * sizeof *grown);
    if (grown == NULL) {
      fprintf(stderr, "master_worker: out of memory growing the queue\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    q->a = grown;
  }
  nd->u.h.id = q->next_id++;
  size_t i = q->size++;
  while (i > 0 && before(nd, q->a[(i - 1) / 2])) {
    q->a[i] = q->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  q->a[i] = nd;
}

static node* pop(queue* q) {
  node* top = q->a[0];
  node* last = q->a[--q->size];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= q->size) break;
    if (c + 1 < q->size && before(q->a[c + 1], q->a[c])) ++c;
    if (!before(q->a[c], last)) break;
    q->a[i] = q->a[c];
    i = c;
  }
  if (q->size > 0) q->a[i] = last;
  return top;
}

/* Copies the children packed in buf[0, bytes) into the queue, in order. Returns how many, or -1
 * if the bytes are not a well-formed series of nodes. */
static int push_children(queue* q, const unsigned char* buf, size_t bytes) {
  int count = 0;
  size_t off = 0;
  while (off < bytes) {
    if (bytes - off < HEADER_BYTES) return -1;
    node_info h;
    memcpy(&h, buf + off, sizeof h);
    for (int a = 0; a < 3; ++a)
      if (h.n[a] < N_MIN || h.n[a] > N_MAX) return -1;
    const size_t nb = HEADER_BYTES + samples_of(&h) * sizeof(float);
    if (bytes - off < packed_bytes(nb)) return -1;
    node* nd = alloc_or_die(nb);
    memcpy(nd, buf + off, nb);
    push(q, nd);
    off += packed_bytes(nb);
    ++count;
  }
  return count == 2 || count == 4 || count == 8 ? count : -1;
}

/* The root's eight children: the starting leaves. */
static void seed(queue* q, unsigned char* scratch) {
  node* root = alloc_or_die(NODE_MAX_BYTES);
  memset(root->u.pad, 0, HEADER_BYTES);
  for (int a = 0; a < 3; ++a) {
    root->u.h.lo[a] = -1;
    root->u.h.hi[a] = 1;
    root->u.h.n[a] = N_MIN; /* no samples needed: the split is forced */
  }
  const size_t bytes = expand(root, scratch, 7u);
  free(root);
  push_children(q, scratch, bytes);
}

/* ---- the leaves' checksum ---- */

typedef struct {
  uint64_t hash;   /* sum over leaves of FNV-1a of the leaf's bytes: independent of order */
  double integral; /* sum over leaves of mean sample * volume, in heap order */
  size_t leaves;
  int max_depth;
} summary;

static summary summarize(const queue* q) {
  summary s = {0, 0, q->size, 0};
  for (size_t i = 0; i < q->size; ++i) {
    const node* nd = q->a[i];
    const unsigned char* p = (const unsigned char*)nd;
    const size_t nb = node_bytes(nd);
    uint64_t h = 1469598103934665603ull;
    for (size_t b = 0; b < nb; ++b) h = (h ^ p[b]) * 1099511628211ull;
    s.hash += h;
    const size_t m = samples_of(&nd->u.h);
    double sum = 0, vol = 1;
    for (size_t k = 0; k < m; ++k) sum += nd->s[k];
    for (int a = 0; a < 3; ++a) vol *= nd->u.h.hi[a] - nd->u.h.lo[a];
    s.integral += sum / (double)m * vol;
    if (nd->u.h.depth > s.max_depth) s.max_depth = nd->u.h.depth;
  }
  return s;
}

static void clear(queue* q) {
  for (size_t i = 0; i < q->size; ++i) free(q->a[i]);
  free(q->a);
  q->a = NULL;
  q->size = q->cap = 0;
  q->next_id = 0;
}

/* ---- the two sides ---- */

typedef struct {
  long steps, expansions;
  size_t min_msg, max_msg;
} stats;

/* The master's refinement with `workers` workers (ranks 1..workers). */
static void master(queue* q, long target, int workers, stats* st) {
  unsigned char* scratch = alloc_or_die(RESULT_MAX_BYTES);
  unsigned char** results = alloc_or_die(((size_t)workers + 1) * sizeof *results);
  node** sent = alloc_or_die(((size_t)workers + 1) * sizeof *sent);
  MPI_Request* reqs = alloc_or_die(((size_t)workers * 2 + 1) * sizeof *reqs);
  MPI_Status* statuses = alloc_or_die(((size_t)workers * 2 + 1) * sizeof *statuses);
  for (int w = 1; w <= workers; ++w) results[w] = alloc_or_die(RESULT_MAX_BYTES);
  st->min_msg = SIZE_MAX;
  st->max_msg = 0;

  seed(q, scratch);
  while ((long)q->size < target) {
    const int k = q->size < (size_t)workers + 1 ? (int)q->size : workers + 1;
    const int busy = k - 1;
    for (int w = 1; w <= busy; ++w) {
      sent[w] = pop(q);
      const size_t nb = node_bytes(sent[w]);
      if (nb < st->min_msg) st->min_msg = nb;
      if (nb > st->max_msg) st->max_msg = nb;
      MPI_Isend(sent[w], (int)nb, MPI_BYTE, w, TAG_WORK, MPI_COMM_WORLD, &reqs[2 * (w - 1)]);
      MPI_Irecv(results[w], (int)RESULT_MAX_BYTES, MPI_BYTE, w, TAG_RESULT, MPI_COMM_WORLD,
                &reqs[2 * (w - 1) + 1]);
    }
    /* The master's own node, while the workers compute and the messages travel. */
    node* own = pop(q);
    const size_t bytes = expand(own, scratch, 0);
    free(own);
    push_children(q, scratch, bytes);
    MPI_Waitall(2 * busy, reqs, statuses);
    for (int w = 1; w <= busy; ++w) {
      free(sent[w]);
      int got = 0;
      MPI_Get_count(&statuses[2 * (w - 1) + 1], MPI_BYTE, &got);
      if (push_children(q, results[w], (size_t)got) < 0) {
        fprintf(stderr, "master_worker: malformed result (%d bytes) from worker %d\n", got, w);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    ++st->steps;
    st->expansions += k;
  }
  for (int w = 1; w <= workers; ++w) MPI_Send(NULL, 0, MPI_BYTE, w, TAG_STOP, MPI_COMM_WORLD);

  for (int w = 1; w <= workers; ++w) free(results[w]);
  free(statuses);
  free(reqs);
  free(sent);
  free(results);
  free(scratch);
}

static void worker(void) {
  node* nd = alloc_or_die(NODE_MAX_BYTES);
  unsigned char* out = alloc_or_die(RESULT_MAX_BYTES);
  for (;;) {
    MPI_Status status;
    MPI_Recv(nd, (int)NODE_MAX_BYTES, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == TAG_STOP) break;
    int got = 0;
    MPI_Get_count(&status, MPI_BYTE, &got);
    int ok = got >= HEADER_BYTES;
    for (int a = 0; a < 3 && ok; ++a) ok = nd->u.h.n[a] >= N_MIN && nd->u.h.n[a] <= N_MAX;
    if (!ok || (size_t)got != node_bytes(nd)) {
      fprintf(stderr, "master_worker: malformed work item (%d bytes) from the master\n", got);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const size_t bytes = expand(nd, out, 0);
    MPI_Send(out, (int)bytes, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
  }
  free(out);
  free(nd);
}

/* The same refinement on one process, batch by batch as the master does it with `ranks` ranks:
 * the nodes of a step are popped in the same order and their children inserted in the same order
 * (the master's own first, then the workers' by rank), so the leaves must match exactly. */
static void serial(queue* q, long target, int ranks) {
  unsigned char* scratch = alloc_or_die(RESULT_MAX_BYTES);
  node** batch = alloc_or_die((size_t)ranks * sizeof *batch);
  seed(q, scratch);
  while ((long)q->size < target) {
    const int k = q->size < (size_t)ranks ? (int)q->size : ranks;
    for (int w = 1; w < k; ++w) batch[w] = pop(q);
    batch[0] = pop(q);
    for (int w = 0; w < k; ++w) {
      const size_t bytes = expand(batch[w], scratch, 0);
      free(batch[w]);
      push_children(q, scratch, bytes);
    }
  }
  free(batch);
  free(scratch);
}

static void usage(FILE* to) {
  fprintf(to,
          "usage: master_worker [--quick] [--leaves N] [--verbose]\n"
          "  --leaves N  refine until the queue holds N leaves, 8..10000000 (default 4000;\n"
          "              --quick 160)\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long target = 0;
  int quick = 0, verbose = 0, bad = 0;
  for (int i = 1; i < argc && !bad; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
    } else if (strcmp(a, "--verbose") == 0) {
      verbose = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      if (rank == 0) usage(stdout);
      MPI_Finalize();
      return 0;
    } else if (strcmp(a, "--leaves") == 0) {
      char* end = NULL;
      const long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
      if (i + 1 >= argc || end == argv[i + 1] || *end != '\0' || v < 8 || v > 10000000) {
        bad = 1;
        if (rank == 0)
          fprintf(stderr, "master_worker: --leaves wants a whole number in 8..10000000, not '%s'\n",
                  i + 1 < argc ? argv[i + 1] : "(nothing)");
      }
      target = v;
      ++i;
    } else {
      bad = 1;
      if (rank == 0) fprintf(stderr, "master_worker: unknown argument '%s'\n", a);
    }
  }
  if (bad) {
    if (rank == 0) usage(stderr);
    MPI_Finalize();
    return 2;
  }
  if (target == 0) target = quick ? 160 : 4000;

  int failed = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    queue q = {NULL, 0, 0, 0};
    stats st = {0, 0, 0, 0};
    const double t0 = MPI_Wtime();
    master(&q, target, size - 1, &st);
    const double elapsed = MPI_Wtime() - t0;
    const summary got = summarize(&q);
    clear(&q);

    serial(&q, target, size);
    const summary want = summarize(&q);
    clear(&q);
    failed = got.hash != want.hash || got.integral != want.integral || got.leaves != want.leaves;
    if (failed) {
      printf("check_failed,app,master_worker,%d,%ld\n", size, target);
      fprintf(stderr,
              "master_worker: %zu leaves, hash %016llx, integral %.17g; serial: %zu leaves, hash "
              "%016llx, integral %.17g\n",
              got.leaves, (unsigned long long)got.hash, got.integral, want.leaves,
              (unsigned long long)want.hash, want.integral);
    } else {
      printf("app,master_worker,%d,%ld,time_s,%.6g\n", size, target, elapsed);
    }
    fflush(stdout);
    if (verbose)
      fprintf(stderr,
              "master_worker: %d ranks: %zu leaves (target %ld), depth up to %d, %ld steps, %ld "
              "expansions, work messages %zu..%zu bytes, integral %.9g, %.3f s\n",
              size, got.leaves, target, got.max_depth, st.steps, st.expansions,
              st.min_msg == SIZE_MAX ? 0 : st.min_msg, st.max_msg, got.integral, elapsed);
  } else {
    worker();
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed ? 1 : 0;
}
