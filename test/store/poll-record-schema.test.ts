import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { describe, it } from "node:test";
import { decodePollRecord, decodeRemediationRecord, encodePollRecord } from "../../src/store/poll-record-schema.js";
import { NOW } from "../support/fixtures.js";
import { randomPollRecord, remediationRecordAt } from "../support/replay-records.js";

/** A stored body as a hostile writer would make it: any text, deflated as kintsugi deflates. */
const deflated = (text: string): Buffer => deflateRawSync(Buffer.from(text));

const one = randomPollRecord(NOW, 1);
const two = randomPollRecord(NOW, 2);
const remediation = remediationRecordAt(NOW);

// Whichever driver keeps them, a stored record's body is read through these; another process may have written it.
describe("decodePollRecord and decodeRemediationRecord: a stored body another process may have written", () => {
  it("reads back what encodePollRecord wrote", () => {
    assert.deepEqual(decodePollRecord(encodePollRecord(two)), { ok: true, record: two });
    assert.deepEqual(decodeRemediationRecord(encodePollRecord(remediation)), { ok: true, record: remediation });
  });

  const hostile: Array<[string, Buffer, RegExp]> = [
    ["not deflated", Buffer.from("{}"), /^not a deflated JSON poll record: /],
    ["deflated, not JSON", deflated("not json"), /^not a deflated JSON poll record: /],
    ["columns of different lengths", deflated(JSON.stringify({ ...two, machines: { ...two.machines, rack: [1] } })), /columns of different lengths/],
    [
      "a type index past the dictionary",
      deflated(JSON.stringify({ ...one, machines: { ...one.machines, type: [7] } })),
      /a type index past the type dictionary/,
    ],
    ["a remediation record", encodePollRecord(remediation), /^not a poll record: /],
  ];
  for (const [name, body, message] of hostile) {
    it(`refuses as a poll record a body that is ${name}, saying why`, () => {
      const read = decodePollRecord(body);
      assert.equal(read.ok, false);
      assert.match(read.ok ? "" : read.message, message);
    });
  }

  it("reads a record a newer kintsugi wrote with fields this one does not know, without them (a rolling upgrade)", () => {
    const newer = { ...one, added: [1, 2], machines: { ...one.machines, added: [3] }, constraints: { ...one.constraints, added: 4 } };
    assert.deepEqual(decodePollRecord(deflated(JSON.stringify(newer))), { ok: true, record: one });
    const newerRemediation = { ...remediation, added: "x", gate: { ...remediation.gate, added: true }, unhealthy: { ...remediation.unhealthy, added: [] } };
    assert.deepEqual(decodeRemediationRecord(deflated(JSON.stringify(newerRemediation))), { ok: true, record: remediation });
  });

  it("reads a remediation record with the racks the per-rack limit read, and one from before they were kept", () => {
    const racked = {
      ...remediation,
      unhealthy: { ...remediation.unhealthy, rack: remediation.unhealthy.node.map((_, i) => (i === 0 ? null : i)) },
      rackLimit: 2,
    };
    assert.deepEqual(decodeRemediationRecord(encodePollRecord(racked)), { ok: true, record: racked });
    assert.equal(decodeRemediationRecord(encodePollRecord(remediation)).ok, true, "no rack column, no limit");
    const short = deflated(JSON.stringify({ ...racked, unhealthy: { ...racked.unhealthy, rack: [] } }));
    const read = decodeRemediationRecord(short);
    assert.match(read.ok ? "" : read.message, /columns of different lengths/);
    assert.equal(decodeRemediationRecord(deflated(JSON.stringify({ ...racked, rackLimit: -1 }))).ok, false, "a negative limit");
  });

  it("refuses as a remediation record one whose unhealthy machine has a malformed type, and a poll record", () => {
    const broken = deflated(JSON.stringify({ ...remediation, unhealthy: { ...remediation.unhealthy, machineType: [] } }));
    assert.equal(decodeRemediationRecord(broken).ok, false);
    assert.equal(decodeRemediationRecord(encodePollRecord(one)).ok, false);
  });
});
