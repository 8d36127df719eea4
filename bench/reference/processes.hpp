// What the multi-process references share: n processes forked at once, each running one body.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace rmpl_bench {

/// Forks n processes, process r running `body(r)` and exiting with what it returns; waits for all.
/// True if every one was started and exited with status 0.
template <class Body>
bool run_processes(int n, Body&& body) {
  std::fflush(stdout);  // or each child would print the parent's buffered output again
  int started = 0;
  for (; started < n; ++started) {
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      break;
    }
    if (child == 0) std::_Exit(body(started));
  }
  bool ok = started == n;
  for (int r = 0; r < started; ++r) {
    int status = 0;
    if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ok = false;
  }
  return ok;
}

}  // namespace rmpl_bench
