import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { asReport, asRequest, encodeFrame, FrameError, FrameReader, type SpawnerReport } from "../../src/adapters/spawner-protocol.js";

const started: SpawnerReport = { t: "started", id: 1, pid: 42 };
const ended: SpawnerReport = { t: "ended", id: 1, stdout: "é\u0000\u001b[31m\n", stderr: "" };
const header = (length: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(length);
  return b;
};

describe("the spawner's frames", () => {
  const cases: { name: string; chunks: () => Buffer[]; want: unknown[] }[] = [
    { name: "one frame in one chunk", chunks: () => [encodeFrame(started)], want: [started] },
    { name: "two frames in one chunk", chunks: () => [Buffer.concat([encodeFrame(started), encodeFrame(ended)])], want: [started, ended] },
    {
      name: "a frame cut into single bytes, its header too",
      chunks: () => [...encodeFrame(ended)].map((byte) => Buffer.from([byte])),
      want: [ended],
    },
    {
      name: "a frame's end and the next one's start in one chunk",
      chunks: () => {
        const both = Buffer.concat([encodeFrame(started), encodeFrame(ended)]);
        return [both.subarray(0, 7), both.subarray(7, 30), both.subarray(30)];
      },
      want: [started, ended],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const reader = new FrameReader(1024);
      assert.deepEqual(
        c.chunks().flatMap((chunk) => reader.push(chunk)),
        c.want,
      );
    });
  }

  it("refuses a frame over the bound from its header alone, before its body is buffered", () => {
    const reader = new FrameReader(1024);
    assert.throws(
      () => reader.push(header(0xffffffff)),
      (err: unknown) => err instanceof FrameError && /4294967295 bytes \(at most 1024\)/.test(err.message),
    );
    assert.deepEqual(new FrameReader(1024).push(header(1024)), [], "a frame at the bound is awaited");
  });

  it("refuses a frame that is not JSON", () => {
    const body = Buffer.from("{not json");
    assert.throws(() => new FrameReader(1024).push(Buffer.concat([header(body.length), body])), FrameError);
  });
});

describe("what the replica accepts as a report", () => {
  const cases: { name: string; value: unknown; valid: boolean }[] = [
    { name: "started", value: started, valid: true },
    { name: "exited with a code", value: { t: "exited", id: 0, code: 3, signal: null }, valid: true },
    { name: "exited by a signal", value: { t: "exited", id: 0, code: null, signal: "SIGKILL" }, valid: true },
    { name: "ended", value: ended, valid: true },
    { name: "spawn-error", value: { t: "spawn-error", id: 2, message: "spawn x ENOENT" }, valid: true },
    { name: "no id", value: { t: "started", pid: 42 }, valid: false },
    { name: "a negative id", value: { t: "started", id: -1, pid: 42 }, valid: false },
    { name: "pid 0 (the replica's own group)", value: { t: "started", id: 1, pid: 0 }, valid: false },
    { name: "pid 1 (-1 signals every process the replica may signal)", value: { t: "started", id: 1, pid: 1 }, valid: false },
    { name: "pid 2", value: { t: "started", id: 1, pid: 2 }, valid: true },
    { name: "a negative pid", value: { t: "started", id: 1, pid: -1 }, valid: false },
    { name: "a pid as a string", value: { t: "started", id: 1, pid: "42" }, valid: false },
    { name: "output that is not a string", value: { t: "ended", id: 1, stdout: 5, stderr: "" }, valid: false },
    { name: "an unknown type", value: { t: "ok", id: 1 }, valid: false },
    { name: "not an object", value: "started", valid: false },
    { name: "null", value: null, valid: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(asReport(c.value) !== null, c.valid));
});

describe("what the spawner accepts as a request", () => {
  const run = { t: "run", id: 1, command: "/bin/sh", args: ["-c", "true"], env: { PATH: "/bin" }, lifeline: true, maxOutputBytes: 65536 };
  const cases: { name: string; value: unknown; valid: boolean }[] = [
    { name: "a run", value: run, valid: true },
    { name: "an argument that is not a string", value: { ...run, args: ["-c", 1] }, valid: false },
    { name: "an environment value that is not a string", value: { ...run, env: { PATH: null } }, valid: false },
    { name: "no lifeline flag", value: { ...run, lifeline: undefined }, valid: false },
    { name: "a negative bound", value: { ...run, maxOutputBytes: -1 }, valid: false },
    { name: "another type", value: { ...run, t: "kill" }, valid: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(asRequest(c.value) !== null, c.valid));
});
