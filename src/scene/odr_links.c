/* Which lanes follow which: lane sections within a road, road links
 * (contactPoint), junction connections (laneLink). Right-hand traffic:
 * negative lane ids travel with s, positive against it (a road with
 * rule="LHT" the other way round). Predecessors are defined as the inverse
 * of successors, so the two always agree. */
#include "odr_impl.h"

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

static const odr_junction *junction_by_id(const sensim_road_network *net, const char *id)
{
    for (uint32_t j = 0; j < net->njunction; j++)
        if (!strcmp(net->junction[j].id, id))
            return &net->junction[j];
    return NULL;
}

static int road_by_id(const sensim_road_network *net, const char *id, uint32_t *r)
{
    return sensim_road_network_find(net, id, r) == SENSIM_OK;
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
    if (link->kind == 1) { /* a road: entered at the end its contactPoint names */
        uint32_t r2;
        if (!link->id || !road_by_id(net, link->id, &r2))
            return;
        const int32_t to = has_lane_link ? lane_link : link->contact_end ? -id : id;
        add(a, net, r2, link->contact_end, to);
    } else if (link->kind == 2) { /* a junction: its connections from this road */
        const odr_junction *j = junction_by_id(net, link->id);
        for (uint32_t c = 0; j && c < j->nconn; c++) {
            const odr_connection *cn = &j->conn[c];
            uint32_t r2;
            if (strcmp(cn->incoming, rd->id) || !road_by_id(net, cn->connecting, &r2))
                continue;
            for (uint32_t l = 0; l < cn->nlinks; l++)
                if (cn->lane_links[l][0] == id)
                    add(a, net, r2, cn->contact_end, cn->lane_links[l][1]);
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

SENSIM_API sensim_status sensim_road_network_next_lanes(const sensim_road_network *net, uint32_t road,
                                                        uint32_t section, int32_t lane, sensim_lane_ref *out,
                                                        uint32_t cap, uint32_t *count)
{
    sensim_status st = check(net, road, section, lane, out, cap, count, __func__);
    if (st)
        return st;
    acc a = {out, cap, 0};
    successors(net, road, section, lane, &a);
    *count = a.n;
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

SENSIM_API sensim_status sensim_road_network_previous_lanes(const sensim_road_network *net, uint32_t road,
                                                            uint32_t section, int32_t lane, sensim_lane_ref *out,
                                                            uint32_t cap, uint32_t *count)
{
    sensim_status st = check(net, road, section, lane, out, cap, count, __func__);
    if (st)
        return st;
    acc a = {out, cap, 0};
    const odr_road *rd = &net->road[road];
    /* the candidates: this road, the roads its links name, a junction's roads, the roads whose links name it */
    consider_road(net, road, road, section, lane, &a);
    for (uint32_t r2 = 0; r2 < net->nroad; r2++) {
        if (r2 == road)
            continue;
        const odr_road *o = &net->road[r2];
        int linked = (o->pred.kind == 1 && !strcmp(o->pred.id, rd->id)) ||
                     (o->succ.kind == 1 && !strcmp(o->succ.id, rd->id)) ||
                     (rd->pred.kind == 1 && !strcmp(rd->pred.id, o->id)) ||
                     (rd->succ.kind == 1 && !strcmp(rd->succ.id, o->id));
        for (uint32_t j = 0; !linked && j < net->njunction; j++)
            for (uint32_t c = 0; !linked && c < net->junction[j].nconn; c++) {
                const odr_connection *cn = &net->junction[j].conn[c];
                linked = !strcmp(cn->incoming, o->id) && !strcmp(cn->connecting, rd->id);
            }
        if (linked)
            consider_road(net, r2, road, section, lane, &a);
    }
    *count = a.n;
    return SENSIM_OK;
}
