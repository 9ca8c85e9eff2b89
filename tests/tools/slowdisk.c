// SPDX-License-Identifier: Apache-2.0
// LD_PRELOAD'ed into a console by tests that need a slow disk: every
// pwrite() of less than 64 KiB (the audit log's records and head, not the
// zeros it preallocates in 64 KiB pieces) waits HOLDPOINT_SLOWDISK_MS
// first. It widens the moment between a record being appended and being on
// disk, so a test can kill the console inside it every time.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
    static pwrite_fn real;
    static long delayMs = -1;
    if (!real)
        real = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
    if (delayMs < 0) {
        const char *ms = getenv("HOLDPOINT_SLOWDISK_MS");
        delayMs = ms ? atol(ms) : 0;
    }
    if (delayMs > 0 && count < 65536) {
        const struct timespec wait = { delayMs / 1000, (delayMs % 1000) * 1000000L };
        nanosleep(&wait, NULL);
    }
    return real(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset)
{
    return pwrite(fd, buf, count, offset);
}
