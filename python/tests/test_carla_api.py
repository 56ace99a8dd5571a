"""docs/carla.md's table of CARLA's API against sensim.carla (issue 64 items 5 and 6), both ways: every
CARLA 0.9.15 name of a class is in exactly one column; a supported or differing name is a real attribute
of the object a script gets; a refused one is an attribute whose call raises RuntimeError naming the
call; a class nobody can obtain is listed whole; and a name CARLA lacks raises AttributeError with the
closest names."""
import os
import re
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla
    from sensim import _carla_api as api

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "carla.md")


def table():
    """{class: (supported, differs, refused, refused cell text)} from docs/carla.md."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    sec = text[text.index("## CARLA's API, class by class"):]
    rows = {}
    for line in sec.splitlines():
        m = re.match(r"^\| `carla\.(\w+)` \|(.*)\|(.*)\|(.*)\|$", line)
        if m:
            names = [set(re.findall(r"`(\w+)`", cell)) for cell in m.groups()[1:]]
            rows[m.group(1)] = (names[0], names[1], names[2], m.group(4))
    return rows


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = carla.Client("localhost", 2000)
        world = cls.client.load_world("street")
        s = world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        world.apply_settings(s)
        bl = world.get_blueprint_library()
        car = world.spawn_actor(bl.find("vehicle.tesla.model3"), carla.Transform(carla.Location(5, 0, 0)))
        cls.objects = {
            "Client": cls.client, "World": world, "Map": world.get_map(),
            "Waypoint": world.get_map().get_waypoint(carla.Location(0, 1.75, 0)),
            "TrafficManager": cls.client.get_trafficmanager(),
            "WalkerAIController": world.spawn_actor(bl.find("controller.ai.walker"), carla.Transform(),
                                                    world.spawn_actor(bl.find("walker.pedestrian.0002"),
                                                                      carla.Transform(carla.Location(0, 5, 0.15)))),
            "Actor": world.get_spectator(), "Vehicle": car,
            "Walker": world.spawn_actor(bl.find("walker.pedestrian.0001"), carla.Transform(carla.Location(0, 4, 0))),
            "Sensor": world.spawn_actor(bl.find("sensor.other.imu"), carla.Transform(), attach_to=car),
            "WorldSettings": world.get_settings(), "WorldSnapshot": world.get_snapshot(),
            "ActorBlueprint": bl.find("vehicle.tesla.model3"), "BlueprintLibrary": bl, "DebugHelper": world.debug,
            "TrafficLight": carla.Client("localhost", 2000).load_world("town").get_actors().filter(
                "traffic.traffic_light*")[0],
        }
        cls.world = world

    def test_every_carla_name_is_in_one_column(self):
        rows = table()
        self.assertEqual(set(rows), set(api.CARLA))
        for cls, (sup, dif, ref, cell) in rows.items():
            if cls in api.UNREACHABLE:
                self.assertEqual(sup | dif | ref, set(), cls)
                self.assertIn("all %d:" % len(api.CARLA[cls]), cell, cls)
                continue
            self.assertEqual(sup & dif | sup & ref | dif & ref, set(), cls)
            self.assertEqual(sup | dif | ref, set(api.CARLA[cls]), cls)

    def test_offered_names_are_attributes(self):
        for cls, (sup, dif, ref, _) in table().items():
            if cls in api.UNREACHABLE:
                continue
            obj = self.objects[cls]
            for name in sup | dif:
                self.assertIsNone(api.why_not(cls, name), "%s.%s is refused in the module" % (cls, name))
                self.assertTrue(hasattr(type(obj), name) or name in vars(obj), "%s.%s" % (cls, name))

    def test_refused_names_raise_runtime_error_naming_the_call(self):
        for cls, (_, _, ref, _) in table().items():
            if cls in api.UNREACHABLE:
                continue
            obj = self.objects[cls]
            for name in ref:
                self.assertIsNotNone(api.why_not(cls, name), "%s.%s" % (cls, name))
                fn = getattr(obj, name)  # an attribute, as in CARLA
                with self.assertRaises(RuntimeError, msg="%s.%s" % (cls, name)) as cm:
                    fn()
                self.assertIn("%s.%s" % (cls, name), str(cm.exception))

    def test_what_hands_out_an_unreachable_class_is_refused(self):
        w = self.world
        for call in (w.get_lightmanager, lambda: w.get_traffic_light(None)):
            with self.assertRaises(RuntimeError):
                call()
        self.assertEqual(len(w.get_actors().filter("traffic.*")), 0)
        with self.assertRaises(RuntimeError):  # a walker controller needs its walker
            w.spawn_actor(w.get_blueprint_library().find("controller.ai.walker"), carla.Transform())

    def test_names_carla_lacks_raise_attribute_error_with_suggestions(self):
        for obj, typo, want in ((self.world, "get_actorz", "get_actors"), (self.client, "get_wrld", "get_world"),
                                (self.objects["Vehicle"], "apply_contrl", "apply_control"),
                                (self.objects["Map"], "get_spawnpoints", "get_spawn_points"),
                                (self.objects["Sensor"], "listn", "listen")):
            with self.assertRaises(AttributeError) as cm:
                getattr(obj, typo)
            self.assertIn("did you mean", str(cm.exception))
            self.assertIn(repr(want), str(cm.exception))
        self.assertFalse(hasattr(self.objects["Walker"], "set_light_state"))  # a Vehicle's, not a Walker's
        self.assertFalse(hasattr(self.world, "_no_such_private"))

    def test_the_small_ones(self):
        car, w = self.objects["Vehicle"], self.world
        self.assertEqual(car.get_traffic_light_state(), carla.TrafficLightState.Green)  # CARLA's, with no light
        self.assertIsNone(car.get_traffic_light())
        self.assertFalse(car.is_at_traffic_light())
        self.assertEqual(car.get_failure_state(), carla.VehicleFailureState.NONE)
        self.assertEqual((car.is_active, car.is_dormant, car.actor_state), (True, False, carla.ActorState.Active))
        car.set_light_state(carla.VehicleLightState.HighBeam)
        self.assertEqual(w.get_vehicles_light_states(), {car.id: carla.VehicleLightState.HighBeam})
        self.assertEqual(w.id, w.get_snapshot().id)
        w.debug.draw_point(carla.Location(1, 2, 3), life_time=0.1)
        w.debug.draw_box(carla.BoundingBox(carla.Location(), carla.Vector3D(1, 1, 1)), carla.Rotation())
        self.assertEqual(w.debug.sensim_drawn, 2)
        with self.assertRaises(TypeError):
            w.debug.draw_line(1, 2)
        self.assertIsNone(self.client.load_world_if_different("street"))  # the current map: nothing loaded
        self.assertIs(self.client.get_world(), w)
        car.set_autopilot(False)  # accepted: no vehicle is on autopilot


if __name__ == "__main__":
    unittest.main()
