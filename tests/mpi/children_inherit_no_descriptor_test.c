/* A program that a rank starts (system(), fork and exec) inherits no descriptor of the job: not
 * the job segment's memfd (a child that outlived the job would keep the whole segment alive), nor
 * any other descriptor the library holds. The rank runs this very program again as the child, with
 * --list-fds, which prints each descriptor it holds and what it points at; the rank compares that
 * with what it held before MPI_Init (what the test's own launcher left open is not the library's).
 * The segment's descriptor itself was there before MPI_Init (rmplrun hands it down through exec),
 * so it is named by RMPL_SHM_FD and by its target. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { max_fd = 4096 };

/* The child: "fd target" per open descriptor but the one reading /proc/self/fd. */
static int list_fds(void) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) {
    perror("opendir /proc/self/fd");
    return 2;
  }
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    const int fd = atoi(e->d_name);
    if (fd == dirfd(dir)) continue;
    char path[64], target[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(path, target, sizeof target - 1);
    target[n < 0 ? 0 : n] = '\0';
    printf("%d %s\n", fd, target);
  }
  closedir(dir);
  return 0;
}

/* Marks in `open_now` the descriptors this process holds. */
static void snapshot(char open_now[max_fd]) {
  memset(open_now, 0, max_fd);
  DIR* dir = opendir("/proc/self/fd");
  CHECK(dir != NULL, "opendir /proc/self/fd: %s", strerror(errno));
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    const int fd = atoi(e->d_name);
    if (fd != dirfd(dir) && fd >= 0 && fd < max_fd) open_now[fd] = 1;
  }
  closedir(dir);
}

/* Checks the child's list in `path`: every descriptor above 2 that the rank did not hold before
 * MPI_Init, or that is the job segment's, is one the library leaked. */
static void check_listing(int rank, const char* how, const char* path, const char before[max_fd],
                          int segment_fd) {
  FILE* f = fopen(path, "r");
  CHECK(f != NULL, "rank %d: %s: no listing at %s: %s", rank, how, path, strerror(errno));
  int lines = 0;
  char line[600];
  while (fgets(line, sizeof line, f)) {
    int fd = -1, at = 0;
    CHECK(sscanf(line, "%d %n", &fd, &at) == 1, "rank %d: %s: a bad listing line: %s", rank, how,
          line);
    const char* target = line + at;
    line[strcspn(line, "\n")] = '\0';
    ++lines;
    if (fd <= 2) continue;
    /* By name only the segment's memfd: a path of the build tree may well contain "rmpl" (the
     * test harness's own log, inherited from before MPI_Init, once did). */
    const int leaked =
        fd == segment_fd || fd >= max_fd || !before[fd] || strstr(target, "memfd:rmpl") != NULL;
    CHECK(!leaked,
          "rank %d: a child started by %s inherited descriptor %d (%s) from the job "
          "(RMPL_SHM_FD=%d)",
          rank, how, fd, target, segment_fd);
  }
  fclose(f);
  CHECK(lines >= 1, "rank %d: %s: the child listed no descriptor (not even stdout)", rank, how);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--list-fds") == 0) return list_fds();

  static char before[max_fd];
  snapshot(before);
  char self[1024];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  CHECK(len > 0, "readlink /proc/self/exe: %s", strerror(errno));
  self[len] = '\0';

  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const char* segment_text = getenv("RMPL_SHM_FD");
  const int segment_fd = segment_text && *segment_text ? atoi(segment_text) : -1;
  /* Some traffic first, so that whatever the library opens on the way is open now. */
  int mine = rank + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size + 1) / 2, "rank %d: allreduce gave %d", rank, sum);
  static double big[1 << 16];
  if (size > 1) {
    CHECK_MPI(MPI_Sendrecv_replace(big, 1 << 16, MPI_DOUBLE, (rank + 1) % size, 1,
                                   (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }

  char listing[256];
  snprintf(listing, sizeof listing, "/tmp/rmpl-fd-listing-%d-%d", (int)getpid(), rank);

  /* fork and exec: what a program's own process creation does. */
  const pid_t pid = fork();
  CHECK(pid >= 0, "rank %d: fork: %s", rank, strerror(errno));
  if (pid == 0) {
    if (!freopen(listing, "w", stdout)) _exit(3);
    execl(self, self, "--list-fds", (char*)NULL);
    _exit(4);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid, "rank %d: waitpid: %s", rank, strerror(errno));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "rank %d: the child ended with status 0x%x",
        rank, status);
  check_listing(rank, "fork and exec", listing, before, segment_fd);

  /* system(): through a shell. */
  char command[2048];
  snprintf(command, sizeof command, "'%s' --list-fds > '%s'", self, listing);
  status = system(command);
  CHECK(status == 0, "rank %d: system(\"%s\") returned 0x%x", rank, command, status);
  check_listing(rank, "system()", listing, before, segment_fd);
  unlink(listing);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) printf("children of every rank inherited no descriptor of the job\n");
  return 0;
}
