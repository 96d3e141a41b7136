import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The checkout's root, ending in a slash. */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** The README and every page of docs/ and its folders, as paths from the checkout's root. */
export const DOC_FILES: readonly string[] = [
  "README.md",
  ...(readdirSync(`${REPO}docs`, { recursive: true }) as string[])
    .map((name) => name.split("\\").join("/"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The text of a file of the checkout, by its path from the root. */
export const readDoc = (path: string): string => readFileSync(`${REPO}${path}`, "utf8");
