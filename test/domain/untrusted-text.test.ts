import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeControlCharacters, quoteUntrusted } from "../../src/domain/untrusted-text.js";

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
