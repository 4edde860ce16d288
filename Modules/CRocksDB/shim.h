// Debian's librocksdb-dev (7.8): only the C API is used from Swift.
#include <rocksdb/c.h>
