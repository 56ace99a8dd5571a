/**
 * @file sensim/io.h
 * @brief Point cloud writers.
 */
#ifndef SENSIM_IO_H
#define SENSIM_IO_H

#include <sensim/ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Write points as a binary little-endian PLY file with one element "vertex"
 * whose properties are, in order: float x, float y, float z (metres),
 * float intensity, float range (metres), uint time (ns from frame start),
 * uint object_id, ushort ring (channel), uchar tag, uchar flags.
 * @param path    destination, borrowed. Written to PATH.tmp then renamed, so a
 *                failure never leaves a half-written file at PATH.
 * @param header  optional frame header; its frame number, times and pose go
 *                into comment lines (may be NULL).
 * @param points  @p count records, borrowed; may be two spans (as in a
 *                sensim_frame_view) via sensim_write_ply_view().
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_IO.
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_ply(const char *path, const sensim_frame_header *header,
                                          const sensim_point *points, uint64_t count);

/** As sensim_write_ply() for a frame view (both spans). Since 0.1. */
SENSIM_API sensim_status sensim_write_ply_view(const char *path, const sensim_frame_view *view);

/**
 * Write an image as PNG (libpng).
 * @param channels   1 (gray) or 3 (RGB).
 * @param bit_depth  8 (data is uint8_t) or 16 (data is uint16_t, host order).
 * @param data       rows top to bottom, @p stride_bytes apart; borrowed.
 * Written to PATH.tmp then renamed.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE
 *         (size 0 or > 65535), SENSIM_ERR_IO.
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_png(const char *path, uint32_t width, uint32_t height, uint32_t channels,
                                          uint32_t bit_depth, const void *data, size_t stride_bytes);

#ifdef __cplusplus
}
#endif

#endif
