/**
 * @file sensim/common.h
 * @brief Export macro, status codes, version queries.
 *
 * Thread safety: every function in this header may be called from any thread
 * at any time.
 */
#ifndef SENSIM_COMMON_H
#define SENSIM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <sensim/version.h>

/** Marks the exported functions (visibility; every other symbol of the library is hidden). */
#if defined(_WIN32)
#  define SENSIM_API __declspec(dllimport)
#elif defined(__GNUC__)
#  define SENSIM_API __attribute__((visibility("default")))
#else
#  define SENSIM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Status returned by every fallible call. Values are pinned and never reused;
 * new codes are appended. Detail (file, line, field, value) is available from
 * sensim_context_last_error() on the thread that made the failing call.
 */
typedef int32_t sensim_status;

#define SENSIM_OK                     0  /**< success */
#define SENSIM_ERR_INVALID_ARGUMENT   1  /**< NULL where forbidden, bad flag, misuse */
#define SENSIM_ERR_OUT_OF_MEMORY      2  /**< allocation failed */
#define SENSIM_ERR_IO                 3  /**< file cannot be opened or read/written */
#define SENSIM_ERR_PARSE              4  /**< malformed or truncated file content */
#define SENSIM_ERR_OUT_OF_RANGE       5  /**< a number outside its documented range */
#define SENSIM_ERR_NOT_FINITE         6  /**< NaN or infinity where a finite value is required */
#define SENSIM_ERR_BAD_INDEX          7  /**< vertex/mesh/actor index that does not exist */
#define SENSIM_ERR_EMPTY              8  /**< mesh or table with nothing in it */
#define SENSIM_ERR_NOT_COMMITTED      9  /**< scene has staged edits (or none) not yet committed */
#define SENSIM_ERR_RING_FULL         10  /**< ring overflow under SENSIM_OVERFLOW_FAIL; nothing written */
#define SENSIM_ERR_RING_EMPTY        11  /**< no complete frame to read (not a failure) */
#define SENSIM_ERR_BAD_HANDLE        12  /**< handle/ring memory not valid (destroyed, foreign, corrupted) */
#define SENSIM_ERR_TOO_LARGE         13  /**< a size that would overflow or exceed a limit */
#define SENSIM_ERR_UNKNOWN_KEY       14  /**< preset or override key not known */
#define SENSIM_ERR_NOT_FOUND         15  /**< preset name or id that does not exist */
#define SENSIM_ERR_BUSY              16  /**< edit refused while a scan uses the scene */
#define SENSIM_ERR_TIME_ORDER        17  /**< t_end before t_begin, or time going backwards */
#define SENSIM_ERR_OVERRUN           18  /**< frame dropped (drop-oldest) while the consumer read it */
#define SENSIM_ERR_BACKEND           19  /**< a backend (Embree, Cyclone DDS) reported an error or is not built in */
#define SENSIM_ERR_DUPLICATE         20  /**< id already in use */
#define SENSIM_ERR_CANCELLED         21  /**< the host cancelled the call (sensim_context_set_cancel); nothing written */

/**
 * Static, human-readable name of a status code ("SENSIM_ERR_PARSE: ...").
 * Never NULL; unknown codes give "unknown status". Since 0.1.
 */
SENSIM_API const char *sensim_status_string(sensim_status status);

/** Run-time library version, "MAJOR.MINOR.PATCH". Since 0.1. */
SENSIM_API const char *sensim_version_string(void);

/** Run-time library version as MAJOR*10000 + MINOR*100 + PATCH. Since 0.1. */
SENSIM_API uint32_t sensim_version_number(void);

#ifdef __cplusplus
}
#endif

#endif
