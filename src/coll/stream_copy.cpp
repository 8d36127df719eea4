#include "coll/stream_copy.hpp"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rmpl::coll {

void stream_copy(std::byte* to, const std::byte* from, std::size_t n) noexcept {
#if defined(__SSE2__)
  // Up to the destination's first 16-byte boundary with memcpy, then 64 bytes (a line) per step.
  std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(to) % 16) % 16;
  if (head > n) head = n;
  std::memcpy(to, from, head);
  std::size_t i = head;
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 48), d);
  }
  for (; i + 16 <= n; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i)));
  }
  std::memcpy(to + i, from + i, n - i);
  _mm_sfence();
#else
  std::memcpy(to, from, n);
#endif
}

}  // namespace rmpl::coll
