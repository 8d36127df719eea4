// Compiled with the core layer's include root only (tests/CMakeLists.txt): a layer that reaches up
// to one above it must not compile. The test passes when the compiler says it cannot find the
// header of the layer above.
#include "coll/task.hpp"
