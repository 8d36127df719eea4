// Destroying a request that is still pending must stop the program with a message naming the
// request, rather than let the library write into (or read from) a buffer that no longer exists.
// Run by CTest through expect_failure.cmake, which requires a non-zero exit and that message.
//
//   pending_request irecv    a receive nobody will match, dropped
//   pending_request isend    a synchronous send nobody will receive, dropped
//   pending_request assign   a pending receive overwritten by move assignment
#include <rmpl/rmpl.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "irecv";
  rmpl::session session;
  auto world = session.world();
  const int tag = 4242;  // the message must name it
  int buffer[4] = {};
  if (std::strcmp(mode, "irecv") == 0) {
    rmpl::request pending = world.irecv(buffer, world.rank(), tag);
  } else if (std::strcmp(mode, "isend") == 0) {
    rmpl::request pending = world.issend(buffer, world.rank(), tag);
  } else if (std::strcmp(mode, "assign") == 0) {
    rmpl::request pending = world.irecv(buffer, world.rank(), tag);
    pending = rmpl::request();
  } else {
    std::fprintf(stderr, "usage: %s [irecv|isend|assign]\n", argv[0]);
    return 2;
  }
  // Reaching this line means the pending request was dropped silently.
  std::printf("the pending request was destroyed without an error\n");
  return 0;
}
