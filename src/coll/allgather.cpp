// Allgather: the ring (n - 1 neighbour steps, each block moves once per step: best for long
// blocks), recursive doubling (log n steps, power-of-two sizes) and Bruck's algorithm (log n steps
// for any size, then one local rotation), for short blocks.
//
// The first step of each sends this rank's own block straight from `in`, not from the copy of it
// this rank makes into `out` (or into Bruck's scratch), and makes that copy only once the step's
// messages are posted. The copy's lines are freshly written, so a receiver reading them (single
// copy) fetches each one from this rank's cache, every call; `in` is not written by the
// collective, so a receiver that read it before may still hold it. Measured 2026-11-23 with 2
// ranks, back to back: with the two vCPUs far apart on the host (a cache line crossing in
// 0.2-0.25 us) the ring took 34-38 us for 64 KiB blocks against Open MPI's 15-18 and rmpl's own
// alltoall's 14-16 (which sends from `in`); sending from `in`, 13.7 us, and 181 us instead of
// 490 for 1 MiB blocks (Open MPI 175-215). With the vCPUs close (0.06-0.07 us): 0.8x the time.
// That gain needs an input unchanged between calls; one rewritten before each call crosses either
// way (measured: the same time as before).
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task allgather_ring(exchange x, const_bytes in, bytes out, layout blocks) {
  const int n = x.size(), rank = x.rank();
  auto block = [&](int r) {
    r = (r % n + n) % n;
    return out.subspan(blocks.displ(r), blocks.count(r));
  };
  const const_bytes mine = in.first(blocks.count(rank));
  const int right = (rank + 1) % n, left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    // Step 0 sends this rank's block from `in` (see the top of the file); later steps forward
    // the block received in the step before.
    x.send(step == 0 ? mine : block(rank - step), right);
    x.recv(block(rank - step - 1), left);
    if (step == 0) copy_bytes(block(rank), mine);
    co_await x.all();
  }
  if (n == 1) copy_bytes(block(rank), mine);
}

task allgather_recursive_doubling(exchange x, const_bytes in, bytes out) {
  const int n = x.size(), rank = x.rank();
  const std::size_t block = in.size();
  const bytes own = out.subspan(static_cast<std::size_t>(rank) * block, block);
  // After the step with `mask`, this rank holds the 2*mask blocks of its aligned group.
  for (int mask = 1; mask < n; mask *= 2) {
    const int partner = rank ^ mask;
    const int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);
    const std::size_t len = static_cast<std::size_t>(mask) * block;
    // The first step's group is this rank's block alone: sent from `in` (top of the file).
    x.send(mask == 1 ? in : out.subspan(static_cast<std::size_t>(mine) * block, len), partner);
    x.recv(out.subspan(static_cast<std::size_t>(theirs) * block, len), partner);
    if (mask == 1) copy_bytes(own, in);
    co_await x.all();
  }
  if (n == 1) copy_bytes(own, in);
}

task allgather_bruck(exchange x, const_bytes in, bytes out) {
  const int n = x.size(), rank = x.rank();
  const std::size_t block = in.size();
  // Gathered blocks in the order rank, rank + 1, ..., rank - 1.
  scratch gathered(static_cast<std::size_t>(n) * block);
  for (int have = 1; have < n; have *= 2) {
    const int count = std::min(have, n - have);
    const std::size_t len = static_cast<std::size_t>(count) * block;
    // The first step sends this rank's block alone: from `in` (top of the file).
    x.send(have == 1 ? in : const_bytes(gathered).first(len), (rank - have + n) % n);
    x.recv(bytes(gathered).subspan(static_cast<std::size_t>(have) * block, len), (rank + have) % n);
    if (have == 1) copy_bytes(bytes(gathered).first(block), in);
    co_await x.all();
  }
  if (n == 1) copy_bytes(bytes(gathered).first(block), in);
  for (int j = 0; j < n; ++j) {
    copy_bytes(out.subspan(static_cast<std::size_t>((rank + j) % n) * block, block),
               const_bytes(gathered).subspan(static_cast<std::size_t>(j) * block, block));
  }
}

}  // namespace rmpl::coll
