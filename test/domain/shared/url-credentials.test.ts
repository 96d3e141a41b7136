import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hasUrlCredentials, redactUrlCredentials } from "../../../src/domain/shared/url-credentials.js";

describe("hasUrlCredentials", () => {
  const cases: ReadonlyArray<{ name: string; url: string; want: boolean }> = [
    { name: "a plain URL", url: "http://sabakan:10080", want: false },
    { name: "a user and a password", url: "http://u:p@sabakan", want: true },
    { name: "a user only", url: "https://u@sabakan", want: true },
    { name: "a password only", url: "http://:p@sabakan", want: true },
    { name: "an @ in the path", url: "http://sabakan/a@b", want: false },
    { name: "not a URL", url: "u:p@sabakan", want: false },
  ];
  for (const { name, url, want } of cases) it(name, () => assert.equal(hasUrlCredentials(url), want));
});

describe("redactUrlCredentials", () => {
  const cases: ReadonlyArray<{ name: string; text: string; want: string }> = [
    { name: "no URL", text: "must be > 0", want: "must be > 0" },
    { name: "a URL without credentials", text: 'got "http://sabakan/a@b"', want: 'got "http://sabakan/a@b"' },
    { name: "a user and a password", text: 'got "http://u:SECRET@sabakan:10080/graphql"', want: 'got "http://***@sabakan:10080/graphql"' },
    { name: "an @ in the password", text: "http://u:SE@CRET@sabakan/", want: "http://***@sabakan/" },
    { name: "two URLs on a line", text: "https://a:S1@x and HTTP://b:S2@y?q=1", want: "https://***@x and HTTP://***@y?q=1" },
    { name: "a URL at the end of a line before another", text: "ws://u:S@h\nhttp://h/@", want: "ws://***@h\nhttp://h/@" },
  ];
  for (const { name, text, want } of cases) it(name, () => assert.equal(redactUrlCredentials(text), want));
});
