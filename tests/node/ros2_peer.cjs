// A ROS 2 peer built on an independent RTPS stack (@foxglove/rtps, the
// TypeScript stack of a popular ROS visualiser), for tests/test_ros2_peer.py.
// It subscribes to every ROS topic ("rt/...") and to ros_discovery_info it
// discovers, with reader QoS copied from what each writer announces
// (reliability, durability, history): nothing comes from sensim's tables. A
// writer whose announcement this stack cannot parse (a missing entry) is
// never seen, as happened with the default 100 ms blocking time.
//
// Usage: node ros2_peer.cjs DOMAIN ADDRESS OUT.json [--expect=TOPIC:N,...] [TOPIC...]
// (no TOPIC: every topic; --expect: print "complete" once each TOPIC has N). Prints "ready" once started and "subscribed
// TOPIC" per subscription; on SIGTERM or stdin closing writes OUT.json:
// {publications: [{topic, type, gid (the writer's GUID, hex), reliability, durability, history, depth,
//                  max_blocking_ns}],
//  messages: {topic: [hex of each message's CDR, in arrival order]}}.
"use strict";
const fs = require("fs");
const { Participant } = require("@foxglove/rtps");
const { UdpSocketNode, getNetworkInterfaces } = require("@foxglove/rtps/nodejs");

const [domain, address, out, ...rest] = process.argv.slice(2);
const expect = {}; // --expect=TOPIC:N,...: print "complete" once each TOPIC has N messages
const only = rest.filter((a) => {
  if (!a.startsWith("--expect="))
    return true;
  for (const kv of a.slice(9).split(",")) {
    const at = kv.lastIndexOf(":");
    expect[kv.slice(0, at)] = Number(kv.slice(at + 1));
  }
  return false;
});
let complete = false;
const p = new Participant({ name: "ros2_peer", addresses: [address], domainId: Number(domain),
                            udpSocketCreate: UdpSocketNode.Create, getNetworkInterfaces });
const pubs = [], messages = {}, subscribed = new Set();
p.on("error", (e) => console.error("rtps error:", e.message));
p.on("discoveredPublication", (a) => {
  const name = a.topicName;
  if (!(name.startsWith("rt/") || name === "ros_discovery_info"))
    return;
  const topic = name === "ros_discovery_info" ? name : name.slice(2);
  if (only.length && !only.includes(topic))
    return;
  if (subscribed.has(name))
    return;
  subscribed.add(name);
  pubs.push({ topic, type: a.typeName, gid: a.guidPrefix + (a.entityId >>> 0).toString(16).padStart(8, "0"), reliability: a.reliability.kind === 2 ? "reliable" : "best_effort",
              durability: a.durability === 1 ? "transient_local" : "volatile",
              history: a.history.kind === 1 ? "keep_all" : "keep_last", depth: a.history.depth,
              max_blocking_ns: Number(a.reliability.maxBlockingTime.sec) * 1e9 +
                               Number(a.reliability.maxBlockingTime.nsec) });
  messages[topic] = messages[topic] || [];
  p.subscribe({ topicName: name, typeName: a.typeName, durability: a.durability, reliability: a.reliability,
                history: a.history });
  console.log("subscribed " + topic);
});
p.on("userData", (u) => {
  const name = u.subscription.topicName;
  const topic = name === "ros_discovery_info" ? name : name.slice(2);
  (messages[topic] = messages[topic] || []).push(Buffer.from(u.serializedData).toString("hex"));
  if (!complete && Object.keys(expect).length &&
      Object.entries(expect).every(([t, n]) => (messages[t] || []).length >= n)) {
    complete = true;
    console.log("complete");
  }
});
let done = false;
function finish() {
  if (done)
    return;
  done = true;
  fs.writeFileSync(out, JSON.stringify({ publications: pubs, messages }));
  p.shutdown();
  process.exit(0);
}
process.on("SIGTERM", finish);
process.stdin.on("end", finish);
process.stdin.resume();
p.start().then(() => console.log("ready"));
