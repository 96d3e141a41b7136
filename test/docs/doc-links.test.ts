import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { DOC_FILES, REPO, readDoc } from "../support/doc-files.js";

/** The text outside fenced code blocks and code spans: what a Markdown renderer may turn into links. */
const proseOf = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
const anchorsOf = (file: string) => new Set([...proseOf(readDoc(file)).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));

/** Every link target: inline `[text](target)`, reference definitions `[name]: target` and autolinks `<scheme:...>`. */
const targetsOf = (prose: string) => [
  ...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!),
  ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
  ...[...prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi)].map((m) => m[1]!),
];

for (const file of DOC_FILES) {
  const prose = proseOf(readDoc(file));
  const targets = targetsOf(prose);
  const here = dirname(`${REPO}${file}`);

  describe(`${file} links only into the repository`, () => {
    it("no link has a scheme or leaves the repository", () => {
      assert.deepEqual(
        targets.filter((t) => /^[a-z][a-z0-9+.-]*:/i.test(t) || t.startsWith("//") || t.startsWith("/")),
        [],
      );
      // `../x` resolves on this machine (a sibling of the checkout) but not where the page is read.
      const outside = targets.filter((t) => {
        const inRepo = relative(REPO, resolve(here, decodeURIComponent(t.split("#")[0]!)));
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

    it("every link resolves: a file of the repository, or a heading of the page it names", () => {
      const broken = targets.filter((target) => {
        const [path, fragment] = target.split("#") as [string, string | undefined];
        const into = path === "" ? `${REPO}${file}` : resolve(here, decodeURIComponent(path));
        if (!existsSync(into)) return true;
        if (fragment === undefined) return false;
        return !into.endsWith(".md") || !anchorsOf(relative(REPO, into)).has(fragment);
      });
      assert.deepEqual(broken, []);
    });
  });
}

describe("the README maps docs/", () => {
  const readme = readDoc("README.md");
  it("is under 200 lines", () => assert.ok(readme.split("\n").length < 200, `README.md has ${readme.split("\n").length} lines`));
  // A page of a folder of docs/ is linked from that folder's README.md, which the README links.
  const folderPage = /^(docs\/.+\/)(?!README\.md$)([^/]+)$/;
  for (const page of DOC_FILES.filter((f) => f !== "README.md")) {
    const inFolder = folderPage.exec(page);
    if (inFolder) {
      const index = `${inFolder[1]}README.md`;
      it(`links ${page} (from ${index})`, () => assert.ok(readDoc(index).includes(`](${inFolder[2]})`), `${index} does not link ${inFolder[2]}`));
    } else {
      it(`links ${page}`, () => assert.ok(readme.includes(`](${page})`), `README.md does not link ${page}`));
    }
  }
});
