// How much memory this process holds, for tests that bound it (the stress run, many-to-one floods).
#pragma once

namespace rmpl_test {

/// Peak resident set size of this process so far, in KiB (getrusage's ru_maxrss).
long peak_rss_kib();
/// Current resident set size, in KiB (/proc/self/statm).
long current_rss_kib();

}  // namespace rmpl_test
