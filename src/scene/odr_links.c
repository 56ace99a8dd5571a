/* Which lanes follow which: lane sections within a road, road links
 * (contactPoint), junction connections (laneLink). Right-hand traffic:
 * negative lane ids travel with s, positive against it (a road with
 * rule="LHT" the other way round). Predecessors are defined as the inverse
 * of successors, so the two always agree. */
#include "odr_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct acc {
    sensim_lane_ref *out;
    uint32_t cap, n;
} acc;

/* does lane @p id of @p r travel with s? */
static int with_s(const odr_road *r, int32_t id) { return r->lht ? id > 0 : id < 0; }

static int lane_index(const odr_section *sec, int32_t id)
{
    for (uint32_t i = 0; i < sec->nlane; i++)
        if (sec->lane[i].id == id)
            return (int)i;
    return -1;
}

static void push(acc *a, uint32_t r, int32_t id, uint32_t k, double s)
{
    for (uint32_t i = 0; i < a->n && i < a->cap; i++)
        if (a->out[i].road == r && a->out[i].lane == id && a->out[i].section == k)
            return;
    if (a->n < a->cap) {
        sensim_lane_ref *o = &a->out[a->n];
        memset(o, 0, sizeof *o);
        o->road = r, o->lane = id, o->section = k, o->s = s;
    }
    a->n++;
}

/* lane @p id of road @p r entered at its start (@p at_end 0) or end: a lane that exists there */
static void add(acc *a, const sensim_road_network *net, uint32_t r, int at_end, int32_t id)
{
    const odr_road *rd = &net->road[r];
    const uint32_t k = at_end ? rd->nsec - 1 : 0;
    if (id == 0 || lane_index(&rd->sec[k], id) < 0)
        return;
    if (with_s(rd, id) == at_end) /* entering at the start, a lane must travel with s; at the end, against it */
        return;
    push(a, r, id, k, at_end ? rd->length : rd->sec[k].s0);
}

/* ---- resolving ids once, at load ---- */

typedef struct pair {
    uint32_t target, source;
} pair;

static int pair_cmp(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return (x->source > y->source) - (x->source < y->source);
}

typedef struct jref {
    const char *id;
    uint32_t i;
} jref;

static int jref_cmp(const void *a, const void *b)
{
    const jref *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static uint32_t road_index(const sensim_road_network *net, const char *id)
{
    uint32_t lo = 0, hi = net->nroad;
    while (id && lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(net->road[net->by_id[mid]].id, id);
        if (c == 0)
            return net->by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

sensim_status sensim__odr_index_links(sensim_road_network *net)
{
    jref *js = malloc((net->njunction ? net->njunction : 1) * sizeof *js);
    uint64_t npairs = 2ull * net->nroad;
    for (uint32_t j = 0; j < net->njunction; j++)
        npairs += net->junction[j].nconn;
    pair *ps = malloc((npairs ? npairs : 1) * sizeof *ps);
    if (!js || !ps) {
        free(js), free(ps);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", net->path);
    }
    for (uint32_t j = 0; j < net->njunction; j++)
        js[j] = (jref){net->junction[j].id, j};
    qsort(js, net->njunction, sizeof *js, jref_cmp);
    uint64_t n = 0;
    for (uint32_t r = 0; r < net->nroad; r++)
        for (int e = 0; e < 2; e++) {
            odr_link *l = e ? &net->road[r].succ : &net->road[r].pred;
            l->index = UINT32_MAX;
            if (l->kind == 1 && (l->index = road_index(net, l->id)) != UINT32_MAX)
                ps[n++] = (pair){l->index, r}; /* r's lanes may lead into the road it links */
            else if (l->kind == 2) {
                uint32_t lo = 0, hi = net->njunction;
                while (lo < hi) { /* the first junction with this id */
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (strcmp(js[mid].id, l->id) < 0)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo < net->njunction && !strcmp(js[lo].id, l->id))
                    l->index = js[lo].i;
            }
        }
    for (uint32_t j = 0; j < net->njunction; j++)
        for (uint32_t c = 0; c < net->junction[j].nconn; c++) {
            odr_connection *cn = &net->junction[j].conn[c];
            cn->incoming_index = road_index(net, cn->incoming);
            cn->connecting_index = road_index(net, cn->connecting);
            if (cn->incoming_index != UINT32_MAX && cn->connecting_index != UINT32_MAX)
                ps[n++] = (pair){cn->connecting_index, cn->incoming_index};
        }
    free(js);
    qsort(ps, n, sizeof *ps, pair_cmp);
    net->feeders = malloc((n ? n : 1) * sizeof *net->feeders);
    if (!net->feeders) {
        free(ps);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", net->path);
    }
    uint32_t m = 0;
    uint64_t i = 0;
    for (uint32_t r = 0; r < net->nroad; r++) {
        net->road[r].feeders0 = m;
        for (; i < n && ps[i].target == r; i++)
            if (ps[i].source != r && (m == net->road[r].feeders0 || net->feeders[m - 1] != ps[i].source))
                net->feeders[m++] = ps[i].source;
        net->road[r].feeders1 = m;
    }
    free(ps);
    return SENSIM_OK;
}

static void successors(const sensim_road_network *net, uint32_t r, uint32_t k, int32_t id, acc *a)
{
    const odr_road *rd = &net->road[r];
    const odr_section *sec = &rd->sec[k];
    const int li = lane_index(sec, id);
    if (li < 0 || id == 0)
        return;
    const odr_lane *ln = &sec->lane[li];
    const int forward = with_s(rd, id);
    /* another section of this road */
    if (forward ? k + 1 < rd->nsec : k > 0) {
        const uint32_t k2 = forward ? k + 1 : k - 1;
        const int32_t to = forward ? (ln->has_succ ? ln->succ : id) : (ln->has_pred ? ln->pred : id);
        if (to != 0 && lane_index(&rd->sec[k2], to) >= 0 && with_s(rd, to) == forward)
            push(a, r, to, k2, forward ? rd->sec[k2].s0 : rd->sec[k2].s1);
        return;
    }
    const odr_link *link = forward ? &rd->succ : &rd->pred;
    const int has_lane_link = forward ? ln->has_succ : ln->has_pred;
    const int32_t lane_link = forward ? ln->succ : ln->pred;
    if (link->index == UINT32_MAX)
        return;
    if (link->kind == 1) { /* a road: entered at the end its contactPoint names */
        /* without a lane link, the lane of the same id, or of the other sign where the travel turns round
         * relative to s (leaving forward into a road's end, or backward into its start) */
        const int32_t to = has_lane_link ? lane_link : link->contact_end == forward ? -id : id;
        add(a, net, link->index, link->contact_end, to);
    } else if (link->kind == 2) { /* a junction: its connections from this road */
        const odr_junction *j = &net->junction[link->index];
        for (uint32_t c = 0; c < j->nconn; c++) {
            const odr_connection *cn = &j->conn[c];
            if (cn->incoming_index != r || cn->connecting_index == UINT32_MAX)
                continue;
            for (uint32_t l = 0; l < cn->nlinks; l++)
                if (cn->lane_links[l][0] == id)
                    add(a, net, cn->connecting_index, cn->contact_end, cn->lane_links[l][1]);
        }
    }
}

static sensim_status check(const sensim_road_network *net, uint32_t road, uint32_t section, int32_t lane,
                           const sensim_lane_ref *out, uint32_t cap, const uint32_t *count, const char *fn)
{
    if (!net || !count || (cap && !out))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: a NULL argument", fn);
    if (road >= net->nroad || section >= net->road[road].nsec ||
        lane_index(&net->road[road].sec[section], lane) < 0)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: no lane %d in section %u of road %u", fn, lane,
                            section, road);
    return SENSIM_OK;
}

/* does lane (r2, k2, id2) lead into (r, k, id)? */
static int leads_into(const sensim_road_network *net, uint32_t r2, uint32_t k2, int32_t id2, uint32_t r, uint32_t k,
                      int32_t id)
{
    sensim_lane_ref buf[64];
    acc a = {buf, 64, 0};
    successors(net, r2, k2, id2, &a);
    for (uint32_t i = 0; i < a.n && i < a.cap; i++)
        if (buf[i].road == r && buf[i].section == k && buf[i].lane == id)
            return 1;
    return 0;
}

static void consider_road(const sensim_road_network *net, uint32_t r2, uint32_t r, uint32_t k, int32_t id, acc *a)
{
    const odr_road *rd = &net->road[r2];
    for (uint32_t k2 = 0; k2 < rd->nsec; k2++) {
        if (r2 != r && k2 != 0 && k2 + 1 != rd->nsec)
            continue; /* only a road's end sections lead out of it */
        for (uint32_t l = 0; l < rd->sec[k2].nlane; l++) {
            const int32_t id2 = rd->sec[k2].lane[l].id;
            if (id2 != 0 && leads_into(net, r2, k2, id2, r, k, id))
                push(a, r2, id2, k2, with_s(rd, id2) ? rd->sec[k2].s0 : rd->sec[k2].s1);
        }
    }
}

/* next (@p ahead) or previous lanes of a lane */
static sensim_status links(const sensim_road_network *net, uint32_t road, uint32_t section, int32_t lane,
                           sensim_lane_ref *out, uint32_t cap, uint32_t *count, int ahead, const char *fn)
{
    sensim_status st = check(net, road, section, lane, out, cap, count, fn);
    if (st)
        return st;
    acc a = {out, cap, 0};
    if (ahead)
        successors(net, road, section, lane, &a);
    else { /* the candidates: this road (its own sections), and the roads whose links or connections lead in */
        consider_road(net, road, road, section, lane, &a);
        for (uint32_t f = net->road[road].feeders0; f < net->road[road].feeders1; f++)
            consider_road(net, net->feeders[f], road, section, lane, &a);
    }
    *count = a.n;
    return SENSIM_OK;
}

SENSIM_API sensim_status sensim_road_network_next_lanes(const sensim_road_network *net, uint32_t road,
                                                        uint32_t section, int32_t lane, sensim_lane_ref *out,
                                                        uint32_t cap, uint32_t *count)
{
    return links(net, road, section, lane, out, cap, count, 1, __func__);
}

SENSIM_API sensim_status sensim_road_network_previous_lanes(const sensim_road_network *net, uint32_t road,
                                                            uint32_t section, int32_t lane, sensim_lane_ref *out,
                                                            uint32_t cap, uint32_t *count)
{
    return links(net, road, section, lane, out, cap, count, 0, __func__);
}
