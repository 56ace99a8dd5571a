/**
 * @file sensim/context.h
 * @brief Library context: ray-tracing device, thread count, errors, logging.
 *
 * A context owns the Embree device. Scenes and lidars created from it keep it
 * alive internally, so handles may be destroyed in any order (as Python's
 * garbage collector does).
 */
#ifndef SENSIM_CONTEXT_H
#define SENSIM_CONTEXT_H

#include <sensim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A library context: threads, logging, presets, cancel flag (opaque; sensim_context_create()). */
typedef struct sensim_context sensim_context;

/** Log levels passed to the log callback. */
#define SENSIM_LOG_ERROR 0
#define SENSIM_LOG_WARN  1 /**< something was left out or changed; the call went on */
#define SENSIM_LOG_INFO  2 /**< progress and figures */

/**
 * Log callback. @p message is borrowed for the duration of the call.
 * It may be called from any thread that calls into the library, and from
 * the context's worker threads, several at once; it must be thread-safe
 * itself.
 */
typedef void (*sensim_log_fn)(void *user, int32_t level, const char *message);

/** Creation settings; fill with sensim_context_desc_init(). */
typedef struct sensim_context_desc {
    /** Threads for rig steps, scans, renders and mesh loading: the
     *  calling thread and up to thread_count - 1 workers. 0 = all available
     *  cores (default). A rig step weighs its lidars and cameras by rays:
     *  one with more than a thread's share runs alone with every thread
     *  on its lanes or tiles, the others run side by side on the
     *  context's workers, each on one thread. The workers are
     *  the library's own threads, started by the first call that needs
     *  them, with every signal blocked; they block on a condition variable
     *  between calls and never spin against the host's threads. A call
     *  that finds them busy (another thread's call on the same context)
     *  does its work on its own thread. Output is bit-identical for any
     *  count and any schedule. Mesh loading and a MEMS lidar's one-lane
     *  blocks (1 kHz steps) still use OpenMP teams, which wait as
     *  OMP_WAIT_POLICY says (BENCHMARKS.md). */
    uint32_t thread_count;
    /** Optional log callback (NULL = silent). Set before creation. */
    sensim_log_fn log_fn;
    /** Opaque pointer handed to log_fn. Borrowed for the context's life. */
    void *log_user;
    uint64_t reserved[8]; /**< reserved: 0 */
} sensim_context_desc;

/**
 * Fill @p desc with defaults (all zero: all cores, no logging).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API void sensim_context_desc_init(sensim_context_desc *desc);

/**
 * Create a context.
 * @param desc     settings, copied; NULL means defaults.
 * @param out_ctx  receives the new context; caller destroys it.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (out_ctx NULL),
 *         SENSIM_ERR_OUT_OF_RANGE (thread_count > 1024),
 *         SENSIM_ERR_BACKEND (Embree device creation failed),
 *         SENSIM_ERR_OUT_OF_MEMORY (also: the thread_count threads cannot
 *         all start, e.g. under ulimit -v: the message names the count; a
 *         count is tried once by starting its threads with OpenMP's stack
 *         size, OMP_STACKSIZE, and joining them, as libgomp would otherwise
 *         exit the process).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_context_create(const sensim_context_desc *desc,
                                               sensim_context **out_ctx);

/**
 * Release the caller's reference. The context is freed once every scene and
 * lidar created from it is destroyed too. NULL is a no-op.
 * Thread safety: not concurrently with other calls on the same context
 * made through this reference. Since 0.1.
 */
SENSIM_API void sensim_context_destroy(sensim_context *ctx);

/**
 * Detail of the last failing call made *on the calling thread* (file, line,
 * field, value). Never NULL; "" when no call has failed on this thread.
 * The text is valid until the next failing call on this thread.
 * @p ctx may be NULL (errors from calls that have no context, such as
 * sensim_ring_init, are recorded the same way).
 * Thread safety: any thread; each thread sees its own text. Since 0.1.
 */
SENSIM_API const char *sensim_context_last_error(const sensim_context *ctx);

/**
 * Number of worker threads scans on this context use (resolved, >= 1).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API uint32_t sensim_context_thread_count(const sensim_context *ctx);

/**
 * Change the worker thread count (0 = all cores). Output of scans does not
 * depend on it (bit-identical for any value).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE (> 1024),
 *         SENSIM_ERR_OUT_OF_MEMORY (the threads cannot all start, as
 *         sensim_context_create(); the count stays).
 * Thread safety: not while a scan on this context runs. Since 0.1.
 */
SENSIM_API sensim_status sensim_context_set_thread_count(sensim_context *ctx,
                                                         uint32_t thread_count);

/**
 * Cancel (@p cancel != 0) or allow again (0) the scans on this context: a
 * running sensim_lidar_scan(), sensim_lidar_scan_motion() or
 * sensim_rig_step() notices within one lane of 64 shots per thread and returns
 * SENSIM_ERR_CANCELLED having written nothing to its ring and leaving the
 * lidar as before the call (a retry after clearing gives the same points);
 * while set, new scans return SENSIM_ERR_CANCELLED at once. The way out of a
 * long scan for a host (Ctrl-C, a watchdog, a GUI's stop button).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE.
 * Thread safety: any thread, also a signal handler (one lock-free atomic
 * store). Since 0.1.
 */
SENSIM_API sensim_status sensim_context_set_cancel(sensim_context *ctx, int32_t cancel);

#ifdef __cplusplus
}
#endif

#endif
