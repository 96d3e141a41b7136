import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { demoOptions, type DemoOptions } from "../../scripts/demo/options.js";

const DEFAULTS: DemoOptions = { port: 10180, scale: 1, durationSeconds: null, logLevel: "warn" };

describe("demoOptions", () => {
  const cases: Array<[string, string[], Partial<DemoOptions>]> = [
    ["none: the real demo on 10180, until Ctrl-C", [], {}],
    ["--port 0: any free port", ["--port", "0"], { port: 0 }],
    ["--fast is --scale 0.2", ["--fast"], { scale: 0.2 }],
    ["--scale, the tests' way to shorten every interval", ["--scale", "0.02"], { scale: 0.02 }],
    ["--duration in seconds", ["--duration", "120"], { durationSeconds: 120 }],
    ["--duration up to what a timer holds", ["--duration", "2147483"], { durationSeconds: 2147483 }],
    ["--log-level for kintsugi's own log", ["--log-level", "info"], { logLevel: "info" }],
    [
      "all of them",
      ["--port", "0", "--scale", "0.5", "--duration", "1.5", "--log-level", "error"],
      { port: 0, scale: 0.5, durationSeconds: 1.5, logLevel: "error" },
    ],
  ];
  for (const [name, args, expected] of cases) {
    it(name, () => assert.deepEqual(demoOptions(args), { ...DEFAULTS, ...expected }));
  }

  const refusals: Array<[string, string[], string]> = [
    ["an unknown option", ["--speed", "2"], 'unknown option "--speed"'],
    ["an option without its value", ["--port"], "--port: needs a value"],
    ["a port that is not a number", ["--port", "http"], '--port: must be a port number from 0 to 65535, got "http"'],
    ["a port out of range", ["--port", "65536"], '--port: must be a port number from 0 to 65535, got "65536"'],
    ["an empty port", ["--port", " "], '--port: must be a port number from 0 to 65535, got " "'],
    ["a scale of 0 (a demo that never moves)", ["--scale", "0"], '--scale: must be a number from 0.001 to 10, got "0"'],
    ["a scale that is not a number", ["--scale", "NaN"], '--scale: must be a number from 0.001 to 10, got "NaN"'],
    ["a negative duration", ["--duration", "-1"], '--duration: must be a number of seconds > 0 and at most 2147483 (24 days), got "-1"'],
    [
      "a duration longer than a timer holds (the demo would stop at once)",
      ["--duration", "3000000"],
      '--duration: must be a number of seconds > 0 and at most 2147483 (24 days), got "3000000"',
    ],
    ["an unknown log level", ["--log-level", "loud"], '--log-level: must be one of fatal, error, warn, info, debug, trace, got "loud"'],
  ];
  for (const [name, args, message] of refusals) {
    it(`refuses ${name}, naming the option`, () => assert.throws(() => demoOptions(args), { message }));
  }
});
