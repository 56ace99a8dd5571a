"""carla.command as CARLA 0.9.15 offers it: commands that Client.apply_batch / apply_batch_sync run in
order (sensim.carla runs them in-process, one after another, each as the call it names), and their
responses. An actor is given as the actor or its id; ``SpawnActor(...).then(command)`` runs ``command``
with ``FutureActor`` standing for the actor just spawned."""


class _Future:
    """carla.command.FutureActor: the actor a SpawnActor's then() commands refer to."""

    def __repr__(self):
        return "FutureActor"


FutureActor = _Future()


class Response:
    """carla.command.Response: ``actor_id`` (the actor a command acted on or spawned, 0 when it failed)
    and ``error`` ("" when it worked)."""

    def __init__(self, actor_id=0, error=""):
        self.actor_id, self.error = actor_id, error

    def has_error(self):
        return bool(self.error)

    def __repr__(self):
        return "Response(actor_id=%d, error=%r)" % (self.actor_id, self.error)


class _Command:
    _args = ()

    def __init__(self, *args, **kw):
        names = self._args
        if len(args) > len(names):
            raise TypeError("%s takes at most %d arguments" % (type(self).__name__, len(names)))
        vals = dict(zip(names, args))
        for k, v in kw.items():
            if k not in names or k in vals:
                raise TypeError("%s: unexpected argument %r" % (type(self).__name__, k))
            vals[k] = v
        for k in names:
            setattr(self, k, vals.get(k, self._defaults.get(k)))

    _defaults = {}

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % (k, getattr(self, k)) for k in self._args))


class SpawnActor(_Command):
    _args = ("blueprint", "transform", "parent")

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.then_commands = []

    def then(self, command):
        """Run @p command after the spawn, FutureActor standing for the new actor; returns this command."""
        self.then_commands.append(command)
        return self


class DestroyActor(_Command):
    _args = ("actor",)


class ApplyTransform(_Command):
    _args = ("actor", "transform")


class ApplyLocation(_Command):
    _args = ("actor", "location")


class ApplyTargetVelocity(_Command):
    _args = ("actor", "velocity")


class ApplyTargetAngularVelocity(_Command):
    _args = ("actor", "angular_velocity")


class ApplyVehicleControl(_Command):
    _args = ("actor", "control")


class ApplyVehicleAckermannControl(_Command):
    _args = ("actor", "control")


class SetSimulatePhysics(_Command):
    _args = ("actor", "enabled")


class SetAutopilot(_Command):
    _args = ("actor", "enabled", "tm_port")
    _defaults = {"tm_port": 8000}


class SetEnableGravity(_Command):
    _args = ("actor", "enabled")


def run(world, cmd, future=None):
    """Run one command in @p world (sensim.carla's World) and give its Response; @p future is the actor a
    SpawnActor's then() commands see as FutureActor."""
    def actor_of(a):
        if a is FutureActor:
            a = future
        aid = a.id if hasattr(a, "type_id") else a
        act = world.get_actor(aid) if isinstance(aid, int) else None
        if act is None:
            raise RuntimeError("actor %r not found" % (aid,))
        return act
    try:
        if isinstance(cmd, SpawnActor):
            parent = actor_of(cmd.parent) if cmd.parent is not None else None
            a = world.spawn_actor(cmd.blueprint, cmd.transform, parent)
            for then in cmd.then_commands:
                r = run(world, then, a)
                if r.error:
                    return Response(a.id, r.error)
            return Response(a.id)
        a = actor_of(cmd.actor)
        calls = {DestroyActor: lambda: a.destroy(),
                 ApplyTransform: lambda: a.set_transform(cmd.transform),
                 ApplyLocation: lambda: a.set_location(cmd.location),
                 ApplyTargetVelocity: lambda: a.set_target_velocity(cmd.velocity),
                 ApplyTargetAngularVelocity: lambda: a.set_target_angular_velocity(cmd.angular_velocity),
                 ApplyVehicleControl: lambda: a.apply_control(cmd.control),
                 ApplyVehicleAckermannControl: lambda: a.apply_ackermann_control(cmd.control),
                 SetSimulatePhysics: lambda: a.set_simulate_physics(cmd.enabled),
                 SetAutopilot: lambda: a.set_autopilot(cmd.enabled, cmd.tm_port),
                 SetEnableGravity: lambda: None}
        fn = calls.get(type(cmd))
        if fn is None:
            raise RuntimeError("%s is not a carla.command sensim.carla runs" % type(cmd).__name__)
        fn()
        return Response(a.id)
    except Exception as e:  # noqa: BLE001 - each command's failure is its response, as CARLA's
        return Response(0, str(e) or type(e).__name__)
