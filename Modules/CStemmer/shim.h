// Snowball stemmers from Debian's libstemmer-dev (installed by `make deps`).
#include <libstemmer.h>
