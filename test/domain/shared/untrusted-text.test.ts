import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeControlCharacters, printableJson, quoteUntrusted } from "../../../src/domain/shared/untrusted-text.js";

describe("escapeControlCharacters", () => {
  const cases: Array<[string, string, string]> = [
    ["plain text is unchanged", "worker-1 10.0.0.3 ÿ é 日本", "worker-1 10.0.0.3 ÿ é 日本"],
    ["an ANSI escape sequence", "\u001b[2J", "\\x1b[2J"],
    ["carriage return, line feed, tab, NUL", "a\rb\nc\td\u0000", "a\\x0db\\x0ac\\x09d\\x00"],
    ["DEL and C1 controls (CSI)", "\u007f\u009b31m", "\\x7f\\x9b31m"],
    ["Unicode line separators", "a\u2028b\u2029", "a\\u2028b\\u2029"],
    ["bidirectional overrides and isolates", "\u202egnp.exe\u2066", "\\u202egnp.exe\\u2066"],
    ["a backslash, so an escape cannot be forged", "\\x1b", "\\\\x1b"],
  ];
  for (const [name, input, want] of cases) it(name, () => assert.equal(escapeControlCharacters(input), want));
});

describe("quoteUntrusted", () => {
  const cases: Array<[string, string, string]> = [
    ["a plain value", "-rf", '"-rf"'],
    ["a double quote inside", 'a"b', '"a\\"b"'],
    ["control characters", "\u001b]0;x\u0007", '"\\x1b]0;x\\x07"'],
    ["a long value is cut after 64 characters", "x".repeat(100), `"${"x".repeat(64)}…"`],
  ];
  for (const [name, input, want] of cases) it(name, () => assert.equal(quoteUntrusted(input), want));
});

describe("printableJson", () => {
  const cases: Array<[string, unknown, number, string]> = [
    ["plain values are JSON.stringify's", { a: ["x", 1, null] }, 0, '{"a":["x",1,null]}'],
    ["C1 controls and DEL become \\u escapes", { s: "\u009b31m\u007f\u0085" }, 0, '{"s":"\\u009b31m\\u007f\\u0085"}'],
    ["bidirectional controls and line separators too", ["\u202egnp\u2066\u2028"], 0, '["\\u202egnp\\u2066\\u2028"]'],
    ["C0 controls as JSON.stringify escapes them", "\u001b[2J\n", 0, '"\\u001b[2J\\n"'],
    ["in keys as in values; indentation kept", { "k\u202e": "v" }, 2, '{\n  "k\\u202e": "v"\n}'],
    ["undefined prints as null", undefined, 0, "null"],
  ];
  for (const [name, value, indent, want] of cases) {
    it(name, () => {
      const json = printableJson(value, indent);
      assert.equal(json, want);
      if (value !== undefined) assert.deepEqual(JSON.parse(json), value, "parses back to the original value");
    });
  }
});
