/*
 * release_free_memory(): gives the memory the C allocator holds free back to the system, and
 * answers 1 if it gave any (issue 45, finding 8; docs/decisions/030-memory-after-a-burst.md).
 *
 *   SELECT release_free_memory()
 *
 * glibc keeps what a process freed in the middle of its heap for the next allocation and returns
 * only the free end of it; the kept pages and compressed forms of a busy minute, freed once idle,
 * stayed resident (~80 MB after a one-minute load on Node 24). Node has no call for malloc_trim,
 * so the server reaches it through SQLite, whose driver it always has: db/release-memory.ts loads
 * this into an in-memory connection of its own and calls it after a sweep let kept renders go.
 * Elsewhere than glibc it does nothing and answers 0.
 *
 * Built by scripts/build-native.js into native/build/ when the project is installed.
 */
#include <stdlib.h> /* defines __GLIBC__ where the C library is glibc */

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#ifdef __GLIBC__
#include <malloc.h>
#endif

static void release_free_memory(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
#ifdef __GLIBC__
  sqlite3_result_int(context, malloc_trim(0));
#else
  sqlite3_result_int(context, 0);
#endif
}

int sqlite3_releasememory_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  (void)error;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "release_free_memory", 0, SQLITE_UTF8, 0,
                                 release_free_memory, 0, 0);
}
