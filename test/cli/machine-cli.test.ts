import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";

describe("kintsugi machine hold, release and holds (in-process against a started server)", () => {
  let k: TestKintsugi;
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);

  before(async () => {
    k = await startTestKintsugi();
  });
  after(() => k.dispose());

  it("holds machines (until a time or for a duration), lists them as a table and as JSON, and releases one", async () => {
    const held = await cli("machine", "hold", "10.0.0.1", "--reason", "firmware test", "--until", "2h");
    assert.equal(held.code, 0, held.stderr);
    const hold = JSON.parse(held.stdout) as Record<string, string>;
    assert.deepEqual([hold["address"], hold["reason"], hold["setBy"], hold["source"]], ["10.0.0.1", "firmware test", "anonymous", "API"]);
    const hours = (Date.parse(hold["until"] as string) - Date.now()) / 3_600_000;
    assert.ok(hours > 1.9 && hours <= 2, `until about 2h from now, got ${hold["until"]}`);
    assert.equal((await cli("machine", "hold", "fd00::1", "--reason", "rack\x07work", "--until", "2099-01-01T00:00:00Z")).code, 0);

    const table = await cli("machine", "holds");
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^ADDRESS\s+SOURCE\s+SET BY\s+SET AT\s+UNTIL\s+REASON$/);
    assert.match(lines[1] ?? "", /^10\.0\.0\.1\s+api\s+anonymous\s+\S+Z\s+\S+Z\s+firmware test$/);
    assert.match(lines[2] ?? "", /^fd00::1\s+api\s+anonymous\s+\S+Z\s+2099-01-01T00:00:00Z\s+rack\\x07work$/, "control characters escaped");
    const json = JSON.parse((await cli("machine", "holds", "--json")).stdout) as Array<Record<string, string>>;
    assert.deepEqual(
      json.map((h) => [h["address"], h["reason"]]),
      [
        ["10.0.0.1", "firmware test"],
        ["fd00::1", "rack\x07work"],
      ],
    );

    const released = await cli("machine", "release", "fd00::1");
    assert.equal(released.code, 0, released.stderr);
    assert.equal((JSON.parse(released.stdout) as Record<string, string>)["reason"], "rack\x07work");
    assert.equal((JSON.parse((await cli("machine", "holds", "--json")).stdout) as unknown[]).length, 1);
    assert.equal((await cli("machine", "release", "10.0.0.1")).code, 0);
    assert.deepEqual(await cli("machine", "holds"), { code: 0, stdout: "no machine is held\n", stderr: "" });
  });

  const refused: Array<[string, string[], RegExp]> = [
    ["a hold without a reason", ["machine", "hold", "10.0.0.2"], /^kintsugi: machine hold: --reason TEXT is required: say why the machine is held/],
    ["an --until that is no time", ["machine", "hold", "10.0.0.2", "--reason", "x", "--until", "soon"], /invalid time "soon"/],
    [
      "an --until in the past",
      ["machine", "hold", "10.0.0.2", "--reason", "x", "--until", "2020-01-01T00:00:00Z"],
      /until: must be after now .*\(INVALID_HOLD\)/,
    ],
    ["an address that is an option", ["machine", "hold", "--reason", "x", "--", "-rf"], /address: invalid IP address: "-rf" \(INVALID_HOLD\)/],
    ["a release of a machine not held", ["machine", "release", "10.0.0.3"], /machine "10\.0\.0\.3" has no hold set through kintsugi .*\(NOT_FOUND\)/],
  ];
  for (const [name, args, message] of refused) {
    it(`refuses ${name} with exit 1 and a message naming the problem`, async () => {
      const result = await cli(...args);
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, message);
      assert.deepEqual(JSON.parse((await cli("machine", "holds", "--json")).stdout), []);
    });
  }
});
