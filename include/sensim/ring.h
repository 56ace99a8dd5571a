/**
 * @file sensim/ring.h
 * @brief Point record, field table, and the frame ring buffer in caller memory.
 *
 * A ring holds whole frames: a frame header plus that frame's point records.
 * One producer (a lidar scan) and one consumer (the host) may use a ring
 * from two threads at once; everything else is one thread at a time.
 * The consumer sees a frame only once it is complete (the scan passed its end
 * time). Points of one frame may wrap around the end of the point storage, so
 * a frame is exposed as two spans.
 *
 * Overflow is never silent. The policy is chosen at init:
 *  - SENSIM_OVERFLOW_FAIL: a scan whose points do not fit writes nothing,
 *    leaves the lidar where it was (the same call can be retried after the
 *    consumer has read), and returns SENSIM_ERR_RING_FULL as soon as the
 *    overflow happens (the rest of the interval is not traced); the refused
 *    points are counted in sensim_ring_stats.points_refused.
 *  - SENSIM_OVERFLOW_DROP_OLDEST: the oldest complete frames are dropped to
 *    make room (counted in frames_dropped / points_dropped); if the frame
 *    being written alone exceeds the ring, its excess points are lost and
 *    counted in that frame's header (lost_points) and in points_lost.
 */
#ifndef SENSIM_RING_H
#define SENSIM_RING_H

#include <sensim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Point record flags. Bits 0-1: return index (0 = first/strongest). */
#define SENSIM_POINT_RETURN_MASK 0x03u
#define SENSIM_POINT_GHOST       0x04u /**< multipath ghost: reached through a specular bounce */
#define SENSIM_POINT_WEATHER     0x08u /**< false return from a rain droplet */

/**
 * One point, 32 bytes, stable ABI (offsets in the comments).
 * x, y, z: metres, sensor frame at the shot's firing time.
 */
typedef struct sensim_point {
    float x;              /**<  0: metres */
    float y;              /**<  4: metres */
    float z;              /**<  8: metres */
    float intensity;      /**< 12: 0..1 */
    float range_m;        /**< 16: distance from the sensor origin, metres */
    uint32_t t_offset_ns; /**< 20: firing time minus frame start, ns */
    uint32_t object_id;   /**< 24: actor id, 0 for static world */
    uint16_t channel;     /**< 28: laser / ring index */
    uint8_t tag;          /**< 30: semantic tag, CARLA 0.9.14+ numbering */
    uint8_t flags;        /**< 31: SENSIM_POINT_* */
} sensim_point;

/** ROS 2 sensor_msgs/PointField datatype values. */
#define SENSIM_FIELD_INT8    1 /**< int8 */
#define SENSIM_FIELD_UINT8   2 /**< uint8 */
#define SENSIM_FIELD_INT16   3 /**< int16 */
#define SENSIM_FIELD_UINT16  4 /**< uint16 */
#define SENSIM_FIELD_INT32   5 /**< int32 */
#define SENSIM_FIELD_UINT32  6 /**< uint32 */
#define SENSIM_FIELD_FLOAT32 7 /**< float32 */
#define SENSIM_FIELD_FLOAT64 8 /**< float64 */

/** Description of one field of sensim_point (numpy dtype, PointCloud2). */
typedef struct sensim_field {
    const char *name;  /**< static text: x y z intensity range t_offset_ns object_id channel tag flags */
    uint32_t offset;   /**< byte offset in the record */
    uint32_t datatype; /**< SENSIM_FIELD_* */
    uint32_t count;    /**< elements (1) */
} sensim_field;

/**
 * Field table of sensim_point: static array, @p out_count receives its
 * length (may be NULL). Record size is sizeof(sensim_point) == 32.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API const sensim_field *sensim_point_fields(uint32_t *out_count);

/** Frame header flags. */
#define SENSIM_FRAME_PARTIAL 0x1u /**< part of the frame's time span was never scanned */

/** Header of one frame in the ring. */
typedef struct sensim_frame_header {
    uint64_t frame_number;  /**< per-sensor frame index (revolution number since t = 0) */
    int64_t t_begin_ns;     /**< frame start time, ns (inclusive) */
    int64_t t_end_ns;       /**< frame end time, ns (exclusive) */
    uint64_t point_count;   /**< points stored for this frame */
    uint64_t lost_points;   /**< points of this frame lost to overflow */
    uint64_t first_point;   /**< internal running index of the first point */
    double sensor_pose[16]; /**< sensor-to-world at the frame's first scanned time, column-major */
    uint32_t lidar_id;      /**< id of the producing sensor */
    uint32_t flags;         /**< SENSIM_FRAME_* */
    int64_t scanned_ns;     /**< how much of [t_begin, t_end) was scanned */
    uint64_t world_step_first; /**< host world step of the first scan call that wrote this frame */
    uint64_t world_step_last;  /**< host world step of the last one (see sensim_motion.world_step) */
    uint64_t reserved[2]; /**< reserved: 0 */
} sensim_frame_header;

/** Overflow policies. */
#define SENSIM_OVERFLOW_FAIL        0
#define SENSIM_OVERFLOW_DROP_OLDEST 1 /**< complete frames are dropped, oldest first, to make room (counted) */

/** A ring buffer; it lives inside memory the caller owns. */
typedef struct sensim_ring sensim_ring;

/**
 * Bytes of caller memory a ring with these capacities needs.
 * @param point_capacity  points the ring can hold (>= 1, <= 2^40).
 * @param frame_capacity  frame headers it can hold (>= 1, <= 2^24).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_required_size(uint64_t point_capacity,
                                                   uint32_t frame_capacity,
                                                   size_t *out_size);

/**
 * Initialise a ring in @p mem (8-byte aligned, @p size bytes, borrowed until
 * the caller stops using the ring; there is no destroy: free @p mem). Every
 * 4 KiB page of the ring's part of @p mem is written once here, so that the
 * first scans do not pay the page faults of fresh memory (about 11 µs a page
 * on a virtual machine: 29 ms for a fresh pandar128 ring).
 * @param out_ring  receives the ring handle (== mem).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, misaligned, bad policy),
 *         SENSIM_ERR_OUT_OF_RANGE, SENSIM_ERR_TOO_LARGE (size too small).
 * Thread safety: no other call may use the ring meanwhile. Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_init(void *mem, size_t size, uint64_t point_capacity,
                                          uint32_t frame_capacity, int32_t overflow_policy,
                                          sensim_ring **out_ring);

/** A complete frame as seen by the consumer (borrowed pointers into the ring). */
typedef struct sensim_frame_view {
    const sensim_frame_header *header; /**< the frame's header */
    const sensim_point *points[2]; /**< two spans; the second is empty unless wrapped */
    uint64_t counts[2];            /**< points in each span */
} sensim_frame_view;

/**
 * Look at the oldest complete frame without removing it. The view stays valid
 * until sensim_ring_release(); under DROP_OLDEST a producer running at the
 * same time may drop it (then release reports SENSIM_ERR_OVERRUN).
 * @return SENSIM_OK, SENSIM_ERR_RING_EMPTY, SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: consumer thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_peek(sensim_ring *ring, sensim_frame_view *out_view);

/**
 * Look at the frame the producer has open (not complete yet): its header so
 * far (point_count, scanned_ns) and the points written into it up to now, in
 * the order they were written; a later scan appends to them until the frame
 * ends and becomes the oldest complete frame for sensim_ring_peek(). For a
 * host that hands out every step's points at once, as CARLA hands each tick
 * the shots of that tick (sensim.carla): points [k, count) of the open frame
 * are those written since it had k. Nothing is removed or released.
 * @return SENSIM_OK, SENSIM_ERR_RING_EMPTY (no frame open), SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_INVALID_ARGUMENT (NULL, or not a point ring).
 * Thread safety: the producer's thread, between scans (it reads what only
 * the producer writes): e.g. the thread that called sensim_rig_step(), after
 * it returned. The view stays valid until the next scan into the ring. Since 0.2.
 */
SENSIM_API sensim_status sensim_ring_peek_open(sensim_ring *ring, sensim_frame_view *out_view);

/**
 * Remove the oldest complete frame.
 * @return SENSIM_OK, SENSIM_ERR_RING_EMPTY, SENSIM_ERR_OVERRUN (it had been
 *         dropped by the producer while read: the data read may be torn),
 *         SENSIM_ERR_BAD_HANDLE.
 * Thread safety: consumer thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_release(sensim_ring *ring);

/**
 * Copy the oldest complete frame out and release it.
 * @param out_header  receives the header (may be NULL).
 * @param dst         destination for point records, or NULL to ask the size.
 * @param dst_capacity  records @p dst holds.
 * @param out_count   receives the frame's point count.
 * With dst NULL, or dst_capacity < count, nothing is released and the call
 * returns SENSIM_OK (dst NULL) or SENSIM_ERR_TOO_LARGE.
 * @return SENSIM_OK, SENSIM_ERR_RING_EMPTY, SENSIM_ERR_TOO_LARGE, SENSIM_ERR_OVERRUN,
 *         SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: consumer thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_pop(sensim_ring *ring, sensim_frame_header *out_header,
                                         sensim_point *dst, uint64_t dst_capacity,
                                         uint64_t *out_count);

/** Cumulative counters of a ring. */
typedef struct sensim_ring_stats {
    uint64_t frames_written;  /**< complete frames produced (dropped ones included) */
    uint64_t frames_dropped;  /**< complete frames dropped unread (DROP_OLDEST) */
    uint64_t points_dropped;  /**< points in those dropped frames */
    uint64_t points_lost;     /**< points that never fitted (DROP_OLDEST, frame > ring) */
    uint64_t scans_refused;   /**< scans refused with SENSIM_ERR_RING_FULL (FAIL) */
    /** Points those refused scans had traced when they stopped: more than
     *  the free room, at most what the scans needed (a scan stops tracing at
     *  the first block that no longer fits: a frame, or 262 144 shots,
     *  instead of tracing the rest for nothing). */
    uint64_t points_refused;
    uint64_t frames_ready;    /**< complete frames waiting to be read now */
    uint64_t reserved[5]; /**< reserved: 0 */
} sensim_ring_stats;

/**
 * Read the counters. @return SENSIM_OK, SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: any thread; counters are a consistent-enough snapshot
 * (each value exact, not taken atomically together). Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_get_stats(const sensim_ring *ring,
                                               sensim_ring_stats *out_stats);

#ifdef __cplusplus
}
#endif

#endif
