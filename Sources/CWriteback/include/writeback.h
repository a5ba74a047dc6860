#ifndef WIDGETSIM_CWRITEBACK_H
#define WIDGETSIM_CWRITEBACK_H

/* Linux's sync_file_range, which Swift's Glibc module does not declare, for
   WidgetSimExecution's `RowsLog`. */

#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

/* Starts writing bytes [offset, offset + count) of the file `fd` to the disk and returns
   without waiting for them (SYNC_FILE_RANGE_WRITE): a later fsync then waits only for
   what was written since. Returns 0, or -1 with errno set; where the system has no such
   call, does nothing and returns 0 (the fsync waits for everything, as before). */
static inline int widgetsim_start_writeback(int fd, long long offset, long long count) {
#if defined(__linux__) && defined(SYS_sync_file_range)
    return (int)syscall(SYS_sync_file_range, fd, offset, count, 2 /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)fd; (void)offset; (void)count;
    return 0;
#endif
}

#endif
