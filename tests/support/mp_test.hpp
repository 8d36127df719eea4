// Support for multi-process GoogleTest programs. Every rank of a job runs the same test binary and
// every TEST is collective: all ranks run the same tests in the same order. Tests derive their
// fixture from rmpl_test::collective, whose SetUp and TearDown synchronise the ranks and agree on
// the result: a failure on any rank fails the test on every rank, and the first failed test stops
// the run on all ranks together (messages a failed test left in flight would confuse the tests
// after it).
//
// The synchronisation runs over a small shared-memory segment of the harness, not over rmpl, so it
// can never match (or be matched by) a test's wildcard receive.
#pragma once

#include <gtest/gtest.h>
#include <rmpl/rmpl.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace rmpl_test {

/// The job's world communicator (the session lives for the whole test program).
rmpl::communicator world();
inline int rank() {
  return world().rank();
}
inline int size() {
  return world().size();
}

/// The host of job rank r as the library sees it: 0 for every rank, unless RMPL_PRETEND_HOSTS
/// splits the ranks among pretended hosts (runtime/local/job.hpp), and then messages between
/// ranks on different hosts go through the ucx provider, not the shared-memory rings.
int host_of(int r);
/// Whether any two of `ranks` are on different hosts.
bool spans_hosts(std::initializer_list<int> ranks);

/// Blocks until every rank has called it. Outside rmpl: no messages, no progress of rmpl requests.
void barrier();

/// Fixture of every collective test: a barrier before the test, and result agreement after it.
class collective : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
};

// ---- data patterns ----

/// A seed naming one message: its size, buffer offset and source, so that a message delivered to
/// the wrong place, shifted or from the wrong sender fails verification.
std::uint64_t seed_of(std::size_t size, std::size_t offset, int source);
/// Fills `data` with the pattern of `seed`: position-dependent at every scale, so a swapped or
/// repeated chunk of a pipelined copy shows up, not only a shifted byte.
void fill_pattern(std::span<std::byte> data, std::uint64_t seed);
/// Empty if `data` holds the pattern; otherwise a description of the first wrong byte and how many
/// bytes are wrong.
std::string check_pattern(std::span<const std::byte> data, std::uint64_t seed);
/// Empty if every byte of `data` equals `value`; otherwise where it does not.
std::string check_filled(std::span<const std::byte> data, std::byte value);

/// A 64-bit mix of two values, for message contents and checksums.
std::uint64_t mix(std::uint64_t a, std::uint64_t b);

// ---- process helpers ----

void sleep_ms(int milliseconds);
/// An integer from the environment, or `fallback` when unset.
long env_long(const char* name, long fallback);
/// The eager/rendezvous threshold in bytes: RMPL_EAGER_MAX as the library reads it (a number with
/// an optional K or M suffix), 16384 when unset.
std::size_t eager_max();

}  // namespace rmpl_test
