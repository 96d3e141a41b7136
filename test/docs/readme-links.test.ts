import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** The text outside fenced code blocks and code spans: what a Markdown renderer may turn into links. */
const prose = README.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
const anchors = new Set([...README.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));

/** Every link target: inline `[text](target)`, reference definitions `[name]: target` and autolinks `<scheme:...>`. */
const targets = [
  ...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!),
  ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
  ...[...prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi)].map((m) => m[1]!),
];

describe("README.md links only into the repository", () => {
  it("has links to check", () => assert.ok(targets.length > 0));

  it("no link has a scheme or leaves the repository", () => {
    assert.deepEqual(
      targets.filter((t) => /^[a-z][a-z0-9+.-]*:/i.test(t) || t.startsWith("//") || t.startsWith("/")),
      [],
    );
    // `../x` resolves on this machine (a sibling of the checkout) but not where the README is read.
    const outside = targets.filter((t) => {
      const inRepo = relative(REPO, resolve(REPO, decodeURIComponent(t.split("#")[0]!)));
      return inRepo === ".." || inRepo.startsWith(`..${sep}`) || isAbsolute(inRepo);
    });
    assert.deepEqual(outside, []);
  });

  it("no address in the prose becomes a link by itself (GitHub links bare http://, https:// and www.)", () => {
    const withoutTargets = prose.replace(/\]\([^)]*\)/g, "]").replace(/<[^>\s]*>/g, "");
    assert.deepEqual(
      [...withoutTargets.matchAll(/\b(?:https?:\/\/|www\.)\S+/g)].map((m) => m[0]),
      [],
    );
  });

  it("every link resolves: a file of the repository, or a heading of the README", () => {
    const broken = targets.filter((target) => {
      const [file, fragment] = target.split("#") as [string, string | undefined];
      if (file === "") return !anchors.has(fragment ?? "");
      return !existsSync(`${REPO}${decodeURIComponent(file)}`);
    });
    assert.deepEqual(broken, []);
  });
});
