"""sensim.carla's built-in town (``--scene town``, ``client.load_world("town")``): an OpenDRIVE grid of
streets written here, so that CARLA scripts that drive around (a waypoint walk, an agent's route, a traffic
manager's loop) have a network without dead ends, junctions with turns both ways and traffic lights, as
CARLA's own towns do. Below the facade (never imports sensim.carla).

The network (native frame = OpenDRIVE's; CARLA's y is its negative):
  * GRID x GRID junctions SPACING metres apart, joined by straight roads: one 3.5 m driving lane each way
    (right-hand traffic), 3 m sidewalks, 50 km/h, a solid centre line;
  * each junction a square of half-size J: connecting roads for every turn (straight, left on radius
    J + 1.75 m, right on J - 1.75 m, no U-turns), each one lane on its reference line;
  * a traffic light (OpenDRIVE signal type 1000001, dynamic) at the stop line of every road that enters a
    junction of three or four roads, on the right sidewalk, valid for the entering lane (corners are bends:
    no lights);
  * building blocks (tag Building) inside every block, set back behind the sidewalks, and a pole (tag
    TrafficLight) under every light, for the sensors to see.
"""
import math

GRID = 3           # junctions per side
SPACING = 100.0    # metres between junction centres
J = 10.0           # half-size of a junction square
LANE, WALK = 3.5, 3.0
_ARMS = {"E": 0.0, "N": 0.5 * math.pi, "W": math.pi, "S": 1.5 * math.pi}


def _road_ids():
    """{(kind, i, j): id}: horizontal roads h from junction (i, j) to (i + 1, j), vertical v to (i, j + 1)."""
    ids, k = {}, 1
    for j in range(GRID):
        for i in range(GRID - 1):
            ids[("h", i, j)] = k
            k += 1
    for i in range(GRID):
        for j in range(GRID - 1):
            ids[("v", i, j)] = k
            k += 1
    return ids


def _arms(ids, i, j):
    """The roads at junction (i, j): {arm: (road id, contact "start"|"end")}."""
    out = {}
    if ("h", i, j) in ids:
        out["E"] = (ids[("h", i, j)], "start")
    if ("h", i - 1, j) in ids:
        out["W"] = (ids[("h", i - 1, j)], "end")
    if ("v", i, j) in ids:
        out["N"] = (ids[("v", i, j)], "start")
    if ("v", i, j - 1) in ids:
        out["S"] = (ids[("v", i, j - 1)], "end")
    return out


def _lanes(marks=True):
    w = '<width sOffset="0" a="%g" b="0" c="0" d="0"/>'
    m = '<roadMark sOffset="0" type="solid" color="standard" width="0.15"/>' if marks else ""
    return ('<lanes><laneSection s="0"><left><lane id="2" type="sidewalk" level="false">%s</lane>'
            '<lane id="1" type="driving" level="false">%s%s</lane></left><center><lane id="0" type="none" '
            'level="false">%s</lane></center><right><lane id="-1" type="driving" level="false">%s%s</lane>'
            '<lane id="-2" type="sidewalk" level="false">%s</lane></right></laneSection></lanes>'
            % (w % WALK, w % LANE, m, m, w % LANE, m, w % WALK))


def _link(kind, road, contact):
    return '<%s elementType="road" elementId="%d" contactPoint="%s"/>' % (kind, road, contact)


def xodr():
    """The town's OpenDRIVE text."""
    ids = _road_ids()
    length = SPACING - 2 * J
    roads, junctions, signals = [], [], {}
    jid = {(i, j): 100 + j * GRID + i for j in range(GRID) for i in range(GRID)}
    for (kind, i, j), rid in sorted(ids.items(), key=lambda kv: kv[1]):
        x, y = i * SPACING, j * SPACING
        if kind == "h":
            x0, y0, hdg, a, b = x + J, y, 0.0, (i, j), (i + 1, j)
        else:
            x0, y0, hdg, a, b = x, y + J, 0.5 * math.pi, (i, j), (i, j + 1)
        roads.append([rid, x0, y0, hdg, a, b])
    out_roads = []
    conn_id = 1000
    for (i, j), jj in sorted(jid.items(), key=lambda kv: kv[1]):
        arms = _arms(ids, i, j)
        cx, cy = i * SPACING, j * SPACING
        conns = []
        for a_in, (r_in, c_in) in sorted(arms.items()):
            th_in = _ARMS[a_in] + math.pi
            lane_in = -1 if c_in == "end" else 1
            p0 = (cx + J * math.cos(_ARMS[a_in]) + 0.5 * LANE * math.sin(th_in),
                  cy + J * math.sin(_ARMS[a_in]) - 0.5 * LANE * math.cos(th_in))
            for a_out, (r_out, c_out) in sorted(arms.items()):
                if a_out == a_in:
                    continue  # no U-turns
                d = (_ARMS[a_out] - th_in + math.pi) % (2 * math.pi) - math.pi
                lane_out = -1 if c_out == "start" else 1
                if abs(d) < 1e-9:
                    geo, ln = "<line/>", 2 * J
                else:
                    r = J + 0.5 * LANE if d > 0 else J - 0.5 * LANE
                    ln = abs(d) * r
                    geo = '<arc curvature="%.17g"/>' % (math.copysign(1.0 / r, d))
                conn_id += 1
                out_roads.append(
                    '<road name="c%d" length="%.17g" id="%d" junction="%d"><link>%s%s</link>'
                    '<type s="0" type="town"><speed max="50" unit="km/h"/></type><planView><geometry s="0" '
                    'x="%.17g" y="%.17g" hdg="%.17g" length="%.17g">%s</geometry></planView><lanes><laneOffset '
                    's="0" a="%g" b="0" c="0" d="0"/><laneSection s="0"><center><lane id="0" type="none" '
                    'level="false"/></center><right><lane id="-1" type="driving" level="false"><link>'
                    '<predecessor id="%d"/><successor id="%d"/></link><width sOffset="0" a="%g" b="0" c="0" '
                    'd="0"/></lane></right></laneSection></lanes></road>'
                    % (conn_id, ln, conn_id, jj, _link("predecessor", r_in, c_in), _link("successor", r_out, c_out),
                       p0[0], p0[1], th_in % (2 * math.pi), ln, geo, 0.5 * LANE, lane_in, lane_out, LANE))
                conns.append('<connection id="%d" incomingRoad="%d" connectingRoad="%d" contactPoint="start">'
                             '<laneLink from="%d" to="-1"/></connection>' % (len(conns), r_in, conn_id, lane_in))
            if len(arms) >= 3:  # a light at the stop line of the entering lane, on the right sidewalk
                t = -(LANE + 0.5 * WALK) if lane_in == -1 else LANE + 0.5 * WALK
                signals.setdefault(r_in, []).append((10000 + sum(map(len, signals.values())), c_in, t, lane_in))
        junctions.append('<junction name="j%d" id="%d">%s</junction>' % (jj, jj, "".join(conns)))
    body = []
    for rid, x0, y0, hdg, a, b in roads:
        pred = '<predecessor elementType="junction" elementId="%d"/>' % jid[a]
        succ = '<successor elementType="junction" elementId="%d"/>' % jid[b]
        sig = ""
        for sid, contact, t, lane in signals.get(rid, []):
            s = SPACING - 2 * J if contact == "end" else 0.0
            sig += ('<signal id="%d" name="light_%d" s="%.17g" t="%.17g" zOffset="0" hOffset="0" orientation="%s" '
                    'dynamic="yes" country="DE" type="1000001" subtype="-1" height="5" width="0.5">'
                    '<validity fromLane="%d" toLane="%d"/></signal>'
                    % (sid, sid, s, t, "+" if lane == -1 else "-", lane, lane))
        body.append('<road name="r%d" length="%.17g" id="%d" junction="-1"><link>%s%s</link>'
                    '<type s="0" type="town"><speed max="50" unit="km/h"/></type><planView><geometry s="0" '
                    'x="%.17g" y="%.17g" hdg="%.17g" length="%.17g"><line/></geometry></planView>%s%s</road>'
                    % (rid, length, rid, pred, succ, x0, y0, hdg, length, _lanes(),
                       "<signals>%s</signals>" % sig if sig else ""))
    return ('<?xml version="1.0" standalone="yes"?>\n<OpenDRIVE><header revMajor="1" revMinor="4" name="town" '
            'version="1"/>%s%s%s</OpenDRIVE>\n' % ("".join(body), "".join(out_roads), "".join(junctions)))


def _box(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0), (x0, y0, z1), (x1, y0, z1), (x1, y1, z1),
         (x0, y1, z1)]
    f = [(0, 2, 1), (0, 3, 2), (4, 5, 6), (4, 6, 7), (0, 1, 5), (0, 5, 4), (1, 2, 6), (1, 6, 5), (2, 3, 7),
         (2, 7, 6), (3, 0, 4), (3, 4, 7)]
    return v, f


def add_props(scene, lights):
    """Building blocks in every block (tag Building, 3) and a pole under every light (tag TrafficLight, 7;
    @p lights: native (x, y) of each)."""
    edge = LANE + WALK + 2.0  # set back 2 m behind the sidewalk
    verts, faces = [], []
    k = 0
    for j in range(GRID - 1):
        for i in range(GRID - 1):
            x0, y0 = i * SPACING + edge, j * SPACING + edge
            x1, y1 = (i + 1) * SPACING - edge, (j + 1) * SPACING - edge
            h = 9.0 + 4.0 * ((i * 3 + j * 5) % 4)
            v, f = _box((x0, y0, 0.0), (x1, y1, h))
            faces += [(a + len(verts), b + len(verts), c + len(verts)) for a, b, c in f]
            verts += v
            k += 1
    if verts:
        scene.add_mesh(verts, faces, tag=3)
    verts, faces = [], []
    for x, y in lights:
        v, f = _box((x - 0.15, y - 0.15, 0.0), (x + 0.15, y + 0.15, 5.0))
        faces += [(a + len(verts), b + len(verts), c + len(verts)) for a, b, c in f]
        verts += v
    if verts:
        scene.add_mesh(verts, faces, tag=7)
