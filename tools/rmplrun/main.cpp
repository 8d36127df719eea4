// rmplrun: starts the ranks of an rmpl job on this host. See usage_text() for what it does.
#include <fcntl.h>
#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <span>

#include "hosts.hpp"
#include "job.hpp"
#include "options.hpp"
#include "program.hpp"
#include "util.hpp"

int main(int argc, char** argv) {
  using namespace rmplrun;
  // Descriptors 0-2 must be taken, or the job segment could land on one that a rank's stdin or
  // stdout then replaces.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  }
  try {
    const options opt = parse_options(std::span(argv + 1, static_cast<std::size_t>(argc - 1)));
    if (opt.help) {
      fmt::print("{}", usage_text());
      return 0;
    }
    if (opt.version) {
      fmt::print("rmplrun (rmpl) {}\n", RMPLRUN_VERSION);
      return 0;
    }
    if (opt.serve_host >= 0) {
      speaker() =
          fmt::format("rmplrun on {}", opt.hosts[static_cast<std::size_t>(opt.serve_host)].name);
    }
    if (!opt.wdir.empty() && ::chdir(opt.wdir.c_str()) != 0) {
      say("cannot change to the working directory '{}': {}", opt.wdir, std::strerror(errno));
      return 1;
    }
    const std::string program = find_program(opt.command.front());
    if (!opt.hosts.empty() && opt.serve_host < 0) return run_hosts_job(opt, program);
    return run_job(opt, program);
  } catch (const usage_error& e) {
    say("{}\nTry 'rmplrun --help' for more information.", e.what());
    return 2;
  } catch (const std::exception& e) {
    say("{}", e.what());
    return 1;
  }
}
