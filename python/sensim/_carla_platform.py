"""sensim.carla's platforms: an actor that carries sensors, with its own rig of the library."""
from . import Rig
from ._carla_types import _native, np


class _Platform:
    """An actor that carries sensors: its rig, its pushed history, its lidars."""

    def __init__(self, world, actor, t_ns, static=False):
        self.actor, self.static = actor, static
        self.rig = Rig(world._ctx)
        self.rig.set_time(t_ns)
        self.history = []  # [(t_ns, native 4x4)] of this platform, the last few ticks
        if not static:
            self.push(t_ns, world)

    def step(self, world, t1, dt):
        """This tick of the platform's rig: through the pushed history, or (static, CARLA's picture) all of
        it from the pose at the tick's end."""
        if self.static:
            self.history = (self.history + [(t1, self.pose())])[-8:]
            return self.rig.step(world._scene, dt, pose=self.pose())
        self.push(t1, world)
        return self.rig.step(world._scene, dt)

    def pose(self):
        return _native(self.actor.get_transform()) if self.actor is not None else np.eye(4)

    def push(self, t_ns, world):
        if self.history and self.history[-1][0] >= t_ns:
            return  # pushed by a tick that was then refused: the key stands
        a = self.actor
        if a is not None and getattr(a, "_jumped", False) and self.history:
            # set_transform / set_location since the last tick: CARLA moves the actor at once, so the
            # platform jumps at the tick's start (a new motion segment: no sweep through the space
            # between, no IMU spike); the samplers' key lists start at the jump
            t_prev = self.history[-1][0]
            m = self.pose()
            self.rig.push_pose(t_prev, m, jump=True)
            self.history = [(t_prev, m)]
        if a is not None:
            a._jumped = False
        m = self.pose()
        self.history = (self.history + [(t_ns, m)])[-8:]
        self.rig.push_pose(t_ns, m)
