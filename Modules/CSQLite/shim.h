// Debian's libsqlite3-dev; built with FTS5, JSON and THREADSAFE=1.
#include <sqlite3.h>
