"""A small procedural street for the Python examples (numpy-free)."""
import sensim


def box(lo, hi):
    v = [[x, y, z] for z in (lo[2], hi[2]) for y in (lo[1], hi[1]) for x in (lo[0], hi[0])]
    f = [[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7], [0, 4, 2],
         [2, 4, 6], [1, 3, 5], [3, 7, 5]]
    return v, f


def build(ctx, length=120.0):
    """Road (tag 1), two rows of buildings (tag 3) and parked cars (actors 1..N, tag 14)."""
    scene = sensim.Scene(ctx)
    h = length / 2
    scene.add_mesh([[-h, -60, 0], [h, -60, 0], [h, 60, 0], [-h, 60, 0]], [[0, 1, 2], [0, 2, 3]], tag=1)
    x = -h + 2
    while x + 12 <= h:
        for side in (-1, 1):
            v, f = box((x, 8 if side > 0 else -18, 0), (x + 12, 18 if side > 0 else -8, 9))
            scene.add_mesh(v, f, tag=3)
        x += 15
    v, f = box((-2.25, -0.9, 0.3), (2.25, 0.9, 1.5))
    car = scene.add_mesh(v, f, tag=14, prototype=True)
    n = 0
    x = -h + 8
    while x + 8 < h:
        n += 1
        scene.add_actor(car, n, sensim.pose(x=x, y=3.5 if n % 2 else -3.5))
        x += 11
    scene.commit()
    return scene, car, n
