/* The one driver loop (drive.h): what batch, ros2 and collect share of stepping a rig. */
#include "drive.h"
#include "batch.h"

#include <stdio.h>
#include <string.h>

/* Keys into the rig up to one at or past @p until (4096 ahead at most, the rig's history); a streamed
 * trajectory is read as far as that, no further. 0, or an exit status after a message. */
static int push_keys(drive_run *d, size_t *pushed, int64_t until)
{
    traj *tr = d->tr;
    while ((*pushed == 0 || tr->keys[*pushed - 1].t_ns < until) &&
           (*pushed < tr->n || live_more_keys(tr))) { /* a stream grows tr */
        /* two keys at one time: a jump (a reset, a teleport) */
        const int jump = *pushed > 0 && tr->keys[*pushed].t_ns == tr->keys[*pushed - 1].t_ns;
        sensim_status st = (jump ? sensim_rig_jump_to_pose : sensim_rig_push_pose)(d->rig, tr->keys[*pushed].t_ns,
                                                                                  tr->keys[*pushed].pose);
        if (st)
            return fail(st);
        (*pushed)++;
    }
    live_forget_keys(tr, pushed); /* a stream that never ends keeps a bounded history */
    return 0;
}

int drive(drive_run *d, const drive_hooks *h)
{
    traj *tr = d->tr;
    const int64_t D = d->step_ns;
    int64_t t_end = d->t_end;
    int rc = 0;
    sensim_status st;
    /* the trajectory's keys: from the 4 before the first step's key (the motion model's stencil) */
    size_t lo = key_at(tr, d->t_begin), pushed = lo - (d->motion == SENSIM_INTERP_CAUSAL ? (lo < 4 ? lo : 4) : 0);
    for (int64_t t = d->t_begin; !rc && t < t_end && !g_stop;) {
        int64_t dt = t_end - t < D ? t_end - t : D;
        sensim_motion m, *mp = NULL;
        if (d->motion == SENSIM_INTERP_CAUSAL) {
            if ((rc = push_keys(d, &pushed, t + dt + d->span)))
                break;
            if (g_live.stream && pushed == tr->n && tr->keys[tr->n - 1].t_ns == g_live.stream_t0_ns &&
                !g_live.stream_rc && !g_stop) { /* as a file of one row is refused */
                fprintf(stderr, "sensim: error: %s: the stream ended after one row: a trajectory needs two rows at "
                                "least\n", live_stream_name());
                rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
                break;
            }
            if (g_live.stream && pushed == tr->n && tr->keys[tr->n - 1].t_ns < t + dt + d->span && h->stream_ended) {
                /* the stream ended: the run ends as the same rows read from a file end it */
                t_end = h->stream_ended(h->user, tr->keys[tr->n - 1].t_ns, &d->span);
                if (t >= t_end)
                    break;
                dt = t_end - t < D ? t_end - t : D;
            }
        } else {
            size_t a = key_at(tr, t), b = a;
            while (b + 1 < tr->n && tr->keys[b].t_ns < t + dt + d->span)
                b++;
            if (b - a + 1 > 64) {
                fprintf(stderr, "sensim: error: --motion linear: world step %lld spans %zu trajectory rows, more than "
                                "the 64 a step's keys hold: use --motion causal, or a shorter --step-ns\n",
                        (long long)(t / D), b - a + 1);
                rc = EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
                break;
            }
            memset(&m, 0, sizeof m);
            m.keys = &tr->keys[a], m.key_count = (uint32_t)(b - a + 1), m.interp = SENSIM_INTERP_LINEAR;
            mp = &m;
        }
        if (h->before && (rc = h->before(h->user, t, dt)))
            break;
        double a0 = now_s();
        sensim_rig_step_result res;
        st = sensim_rig_step(d->rig, d->scene, dt, mp, &res);
        d->scan_s += now_s() - a0;
        if (h->consumer_rc && *h->consumer_rc) {
            rc = *h->consumer_rc;
            break;
        }
        if (st) {
            rc = st == SENSIM_ERR_CANCELLED && g_stop ? -1 : fail(st);
            break;
        }
        if (res.sensors_refused) { /* the rings are sized for a step's frames: never a short step, never silent */
            fprintf(stderr, "sensim: error: world step %llu: %u sensors' rings refused the step (overflow); nothing "
                            "of it was written\n",
                    (unsigned long long)res.world_step, res.sensors_refused);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_RING_FULL;
            break;
        }
        if (h->after && (rc = h->after(h->user, d->rig, t, dt)))
            break;
        t += dt;
    }
    return rc;
}
