// expect_error: the check every bad-input test makes of the C++ API: a call that must throw
// rmpl::error with a given code and a message naming what was wrong.
#pragma once

#include <gtest/gtest.h>
#include <rmpl/rmpl.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "mp_test.hpp"

namespace rmpl_test {

inline std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// `operation` must throw rmpl::error with `code` and a message holding each of `words` (without
/// case). RMPL_TEST_SHOW_ERRORS=1 prints every input with its text (for docs/reliability.md).
inline void expect_error(const std::function<void()>& operation, rmpl::errc code,
                         const std::vector<std::string>& words, const std::string& what_was_done) {
  try {
    operation();
    ADD_FAILURE() << what_was_done << ": no error (expected " << rmpl::to_string(code) << ")";
  } catch (const rmpl::error& e) {
    EXPECT_EQ(e.code(), code) << what_was_done << ": " << e.what();
    const std::string message = lowercase(e.what());
    for (const std::string& word : words) {
      EXPECT_NE(message.find(lowercase(word)), std::string::npos)
          << what_was_done << ": the message does not mention \"" << word << "\": " << e.what();
    }
    if (rank() == 0 && env_long("RMPL_TEST_SHOW_ERRORS", 0) != 0) {
      std::printf("%s -> %s: %s\n", what_was_done.c_str(), rmpl::to_string(e.code()), e.what());
    }
  }
}

}  // namespace rmpl_test
