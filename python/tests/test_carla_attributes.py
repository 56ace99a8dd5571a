"""sensim.carla's blueprint attributes against CARLA 0.9.15's rules (issue 64 items 4 and 5).

Each test names the CARLA source the rule comes from:
  LibCarla/source/carla/client/ActorAttribute.h/.cpp   (Set, Validate, As<T>: atoi, atof, "true"/"false")
  LibCarla/source/carla/client/ActorBlueprint.cpp       (GetAttribute: out_of_range "attribute 'x' not found")
  LibCarla/source/carla/client/BlueprintLibrary.cpp     (at: out_of_range "blueprint 'x' not found")
  PythonAPI/carla/source/libcarla/Blueprint.cpp          (__int__, __float__, __bool__, __eq__ overloads)
  Unreal/.../Carla/Actor/ActorBlueprintFunctionLibrary.cpp (the definitions: role_name, color, speed, ...)
Boost.Python turns std::out_of_range into IndexError, std::invalid_argument (InvalidAttributeValue) into
ValueError and other std::exceptions (BadAttributeCast, a std::logic_error) into RuntimeError.
"""
import random
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla

# What CARLA 0.9.15's examples (generate_traffic.py, manual_control.py, automatic_control.py, ...) do
# with a blueprint's generation, in our words: filter the library, keep every blueprint whose
# int(get_attribute("generation")) equals the generation asked for (1 or 2). On CARLA this gives
# the vehicles of that generation; an ActorAttribute without __int__ made it an empty list.
GET_ACTOR_BLUEPRINTS = '''
def get_actor_blueprints(world, pattern, generation):
    found = world.get_blueprint_library().filter(pattern)
    if generation.lower() == "all" or len(found) == 1:
        return found
    wanted = int(generation)
    return [bp for bp in found if int(bp.get_attribute("generation")) == wanted] if wanted in (1, 2) else []
'''

# CARLA 0.9.15's vehicle catalogue by name (Docs/catalogue_vehicles.md; the European HGV besides)
CARLA_VEHICLES = """audi.a2 audi.etron audi.tt bh.crossbike bmw.grandtourer carlamotors.carlacola
carlamotors.european_hgv carlamotors.firetruck chevrolet.impala citroen.c3 diamondback.century dodge.charger_2020
dodge.charger_police dodge.charger_police_2020 ford.ambulance ford.crown ford.mustang gazelle.omafiets
harley-davidson.low_rider jeep.wrangler_rubicon kawasaki.ninja lincoln.mkz_2017 lincoln.mkz_2020 mercedes.coupe
mercedes.coupe_2020 mercedes.sprinter micro.microlino mini.cooper_s mini.cooper_s_2021 mitsubishi.fusorosa
nissan.micra nissan.patrol nissan.patrol_2021 seat.leon tesla.cybertruck tesla.model3 toyota.prius vespa.zx125
volkswagen.t2 volkswagen.t2_2021 yamaha.yzf""".split()


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Attributes(unittest.TestCase):
    def setUp(self):
        self.world = carla.Client("localhost", 2000).get_world()
        self.bl = self.world.get_blueprint_library()

    # -- 1. parsing: ActorAttribute.cpp As<int> = std::atoi, As<float> = std::atof, As<bool> "true"/"false"
    def test_int_attributes_read_as_atoi(self):
        cam = self.bl.find("sensor.camera.rgb")
        cam.set_attribute("image_size_x", "106.67")  # ActorAttribute::Set -> Validate -> atoi: accepted
        self.assertEqual(cam.get_attribute("image_size_x").as_int(), 106)
        lid = self.bl.find("sensor.lidar.ray_cast")
        for text, want in (("64.0", 64), ("  48", 48), ("16abc", 16), ("+8", 8), ("2.5", 2)):
            lid.set_attribute("channels", text)
            self.assertEqual(lid.get_attribute("channels").as_int(), want, text)
            self.assertEqual(int(lid.get_attribute("channels")), want, text)

    def test_int_attribute_builds_the_sensor_from_what_atoi_reads(self):
        # the engine reads the text with FCString::Atoi too (ActorBlueprintFunctionLibrary.cpp SetCamera)
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        cam = self.bl.find("sensor.camera.depth")
        cam.set_attribute("image_size_x", "40.9")
        cam.set_attribute("image_size_y", "30.2")
        got = []
        sensor = self.world.spawn_actor(cam, carla.Transform(carla.Location(z=2)))
        sensor.listen(got.append)
        self.world.tick()
        self.world.tick()
        sensor.destroy()
        self.assertTrue(got)
        self.assertEqual((got[-1].width, got[-1].height), (40, 30))

    def test_float_attributes_read_as_atof(self):
        lid = self.bl.find("sensor.lidar.ray_cast")
        for text, want in (("1e2", 100.0), (" 30.5", 30.5), ("12.5m", 12.5), ("7", 7.0)):
            lid.set_attribute("range", text)
            self.assertEqual(lid.get_attribute("range").as_float(), want, text)
            self.assertEqual(float(lid.get_attribute("range")), want, text)
        # ActorAttribute.cpp As<float>: beyond a C float's range is "float overflow" (InvalidAttributeValue)
        with self.assertRaises(ValueError) as e:
            lid.set_attribute("range", "1e39")
        self.assertIn("float overflow", str(e.exception))

    def test_bool_attributes_are_true_or_false_in_any_case(self):
        # ActorAttribute::Set lowers a bool's text; As<bool> takes "true" or "false" and nothing else
        bp = self.bl.find("walker.pedestrian.0001")
        bp.set_attribute("is_invincible", "FALSE")
        self.assertIs(bp.get_attribute("is_invincible").as_bool(), False)
        self.assertIs(bool(bp.get_attribute("is_invincible")), False)
        bp.set_attribute("is_invincible", "True")
        self.assertIs(bool(bp.get_attribute("is_invincible")), True)
        for bad in ("1", "yes", ""):
            with self.assertRaises(ValueError, msg=bad):
                bp.set_attribute("is_invincible", bad)
        self.assertIs(bool(bp.get_attribute("is_invincible")), True)

    # -- 2. the Python binding: Blueprint.cpp __int__/__float__/__bool__/__eq__
    def test_int_float_bool_of_an_attribute(self):
        v = self.bl.find("vehicle.tesla.model3")
        self.assertEqual(int(v.get_attribute("number_of_wheels")), 4)
        self.assertEqual(int(v.get_attribute("generation")), 1)
        self.assertIs(bool(v.get_attribute("sticky_control")), True)
        self.assertEqual(float(self.bl.find("sensor.camera.rgb").get_attribute("fov")), 90.0)
        # As<T> on another type: BadAttributeCast (a std::logic_error: RuntimeError)
        with self.assertRaises(RuntimeError):
            float(v.get_attribute("number_of_wheels"))
        with self.assertRaises(RuntimeError):
            int(v.get_attribute("base_type"))

    def test_eq_as_carlas_binding_resolves_it(self):
        v = self.bl.find("vehicle.tesla.model3")
        # a str: operator==<std::string>, As<std::string>() == rhs
        self.assertTrue(v.get_attribute("base_type") == "car")
        self.assertTrue(v.get_attribute("base_type") != "truck")
        # a number reaches operator==<float> (Boost.Python tries the overloads last-registered first and
        # takes a Python int for a C float): equal on a float attribute, a bad cast on an int one
        w = self.bl.find("walker.pedestrian.0001")
        self.assertTrue(w.get_attribute("speed") == 1.4)
        with self.assertRaises(RuntimeError):
            v.get_attribute("number_of_wheels") == 4  # noqa: B015 (CARLA's scripts write int(attr) == 4)
        with self.assertRaises(RuntimeError):
            v.get_attribute("number_of_wheels") == "4"  # noqa: B015
        # another attribute: operator==<ActorAttribute>, the same type and text
        self.assertTrue(v.get_attribute("role_name") == self.bl.find("vehicle.audi.a2").get_attribute("role_name"))

    def test_carlas_get_actor_blueprints_helper(self):
        ns = {}
        exec(GET_ACTOR_BLUEPRINTS, ns)
        get_actor_blueprints = ns["get_actor_blueprints"]
        gen2 = [bp.id for bp in get_actor_blueprints(self.world, "vehicle.*", "2")]
        gen1 = [bp.id for bp in get_actor_blueprints(self.world, "vehicle.*", "1")]
        every = [bp.id for bp in get_actor_blueprints(self.world, "vehicle.*", "All")]
        self.assertIn("vehicle.lincoln.mkz_2020", gen2)
        self.assertIn("vehicle.tesla.model3", gen1)
        self.assertNotIn("vehicle.tesla.model3", gen2)
        self.assertEqual(sorted(gen1 + gen2), sorted(every))
        walkers = get_actor_blueprints(self.world, "walker.pedestrian.*", "2")
        self.assertTrue(walkers)
        # generate_traffic.py --safe: [x for x in blueprints if x.get_attribute('base_type') == 'car']
        cars = [x.id for x in self.bl.filter("vehicle.*") if x.get_attribute("base_type") == "car"]
        self.assertIn("vehicle.audi.a2", cars)
        self.assertNotIn("vehicle.yamaha.yzf", cars)

    # -- 3. recommended values (ActorBlueprintFunctionLibrary.cpp)
    def test_recommended_values(self):
        v = self.bl.find("vehicle.tesla.model3")
        colors = v.get_attribute("color").recommended_values  # MakeVehicleDefinition: RecommendedColors
        self.assertTrue(colors)
        c = random.choice(colors)  # 13 of CARLA's examples do this
        v.set_attribute("color", c)
        col = v.get_attribute("color").as_color()
        self.assertEqual([col.r, col.g, col.b, col.a], [int(x) for x in c.split(",")] + [255])
        # MakeVehicleDefinition: AddRecommendedValuesForActorRoleName({"autopilot", "scenario", "ego_vehicle"})
        self.assertEqual(v.get_attribute("role_name").recommended_values, ["autopilot", "scenario", "ego_vehicle"])
        self.assertEqual(str(v.get_attribute("role_name")), "autopilot")  # a variation's value: its first
        w = self.bl.find("walker.pedestrian.0001")
        self.assertEqual(w.get_attribute("speed").recommended_values, ["1.4", "2.8"])  # generate_traffic: [1], [2]
        self.assertEqual(w.get_attribute("role_name").recommended_values, ["pedestrian"])
        lid = self.bl.find("sensor.lidar.ray_cast")
        self.assertEqual(lid.get_attribute("dropoff_general_rate").recommended_values, ["0.45"])  # MakeLidarDefinition
        self.assertEqual(lid.get_attribute("role_name").recommended_values[:2], ["front", "back"])
        self.assertEqual(self.bl.find("sensor.other.imu").get_attribute("role_name").recommended_values, ["default"])

    # -- 4. the vehicle and walker catalogue (MakeVehicleDefinition, MakePedestrianDefinition)
    def test_vehicle_catalogue_and_attributes(self):
        ids = {bp.id for bp in self.bl.filter("vehicle.*")}
        for name in CARLA_VEHICLES:
            self.assertIn("vehicle." + name, ids)
        for bp in self.bl.filter("vehicle.*"):
            for a in ("number_of_wheels", "generation", "base_type", "object_type", "role_name", "sticky_control",
                      "terramechanics", "special_type", "has_dynamic_doors", "has_lights"):
                self.assertTrue(bp.has_attribute(a), "%s %s" % (bp.id, a))
        self.assertEqual(int(self.bl.find("vehicle.kawasaki.ninja").get_attribute("number_of_wheels")), 2)
        self.assertEqual(str(self.bl.find("vehicle.ford.ambulance").get_attribute("special_type")), "emergency")
        self.assertFalse(self.bl.find("vehicle.ford.ambulance").has_attribute("color"))  # a livery, no paint
        car = self.world.spawn_actor(self.bl.find("vehicle.dodge.charger_2020"), carla.Transform())
        self.assertAlmostEqual(car.bounding_box_extent.x, 2.5039, places=3)
        for bp in self.bl.filter("walker.pedestrian.*"):
            for a in ("is_invincible", "speed", "role_name", "gender", "age", "generation"):
                self.assertTrue(bp.has_attribute(a), "%s %s" % (bp.id, a))
        self.assertEqual(len(self.bl.filter("walker.pedestrian.*")), 51)

    # -- 5. errors
    def test_find_of_a_missing_id_suggests(self):
        with self.assertRaises(IndexError) as e:  # BlueprintLibrary::at: out_of_range
            self.bl.find("vehicle.tesla.model_3")
        self.assertIn("blueprint 'vehicle.tesla.model_3' not found", str(e.exception))
        self.assertIn("did you mean 'vehicle.tesla.model3'", str(e.exception))

    def test_get_attribute_of_a_missing_attribute(self):
        with self.assertRaises(IndexError) as e:  # ActorBlueprint::GetAttribute: out_of_range
            self.bl.find("sensor.lidar.ray_cast").get_attribute("channel")
        self.assertIn("attribute 'channel' not found", str(e.exception))
        self.assertIn("did you mean 'channels'", str(e.exception))

    def test_set_attribute_of_a_read_only_attribute(self):
        bp = self.bl.find("vehicle.tesla.model3")
        for a, v in (("number_of_wheels", "6"), ("generation", "2"), ("base_type", "truck")):
            self.assertFalse(bp.get_attribute(a).is_modifiable)
            with self.assertRaises(ValueError) as e:  # ActorAttribute::Set: InvalidAttributeValue
                bp.set_attribute(a, v)
            self.assertIn("read-only attribute", str(e.exception))
        self.assertEqual(int(bp.get_attribute("number_of_wheels")), 4)

    def test_set_attribute_takes_a_str(self):
        # Blueprint.cpp binds SetAttribute(const std::string &, std::string): an int is an ArgumentError
        with self.assertRaises(TypeError):
            self.bl.find("sensor.lidar.ray_cast").set_attribute("channels", 64)


if __name__ == "__main__":
    unittest.main()
