// Characters a terminal, a log reader or a browser may act on instead of showing: C0 and C1 controls, DEL, the
// Unicode line and paragraph separators, and the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069) that reorder what is shown. The one definition; every escaping below starts from it.
const CONTROL_CLASS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
const CONTROL = new RegExp(`[${CONTROL_CLASS}]`, "gu");
// The same less C0: JSON.stringify escapes those itself, and the newlines of indented JSON are its layout.
const RAW_IN_JSON = new RegExp(`[${CONTROL_CLASS.replace("\\u0000-\\u001f", "")}]`, "gu");

const escapeOne = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

/**
 * Text from outside (sabakan, Kubernetes, the API) made safe to print: every control character is written as a
 * visible escape (`\x1b`, `\u202e`) and a backslash as `\\`, so what is printed cannot move the cursor, clear the
 * screen or forge a line, and two different inputs never print alike.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(CONTROL, escapeOne);
}

/** The longest part of an untrusted value quoted in a message. */
const QUOTED_LIMIT = 64;

/**
 * An untrusted value quoted for a message: double quotes, control characters escaped, cut after 64 characters
 * (with `…`), so a hostile value can neither forge the message nor flood it.
 */
export function quoteUntrusted(value: string): string {
  const cut = value.length > QUOTED_LIMIT ? `${value.slice(0, QUOTED_LIMIT)}…` : value;
  return `"${escapeControlCharacters(cut).replace(/"/g, '\\"')}"`;
}

/**
 * `value` as JSON text (indented by `indent` spaces) whose strings carry every control character of
 * {@link escapeControlCharacters} as a `\uXXXX` escape: JSON.stringify leaves C1 controls, DEL, the line separators
 * and the bidirectional controls raw, and a terminal would act on them. Still valid JSON, and parsing it gives back
 * the original strings.
 */
export function printableJson(value: unknown, indent = 0): string {
  // JSON.stringify gives undefined for a value JSON has no text for (undefined itself): printed as null.
  const json: string = JSON.stringify(value, null, indent) ?? "null";
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * JSON text from outside, printed as it is but for the characters a terminal acts on: inside JSON strings (the only
 * place valid JSON can hold them) each becomes its `\uXXXX` escape, so the JSON means the same; C0 controls other
 * than the layout's tab, newline and carriage return are escaped too. Text that holds none is returned unchanged.
 */
export function printableJsonText(text: string): string {
  return text.replace(CONTROL, (c) => (c === "\t" || c === "\n" || c === "\r" ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** The first character of `text` a terminal would act on, other than tab, newline and carriage return; null if none. */
export function firstControlCharacter(text: string): string | null {
  for (const m of text.matchAll(CONTROL)) if (m[0] !== "\t" && m[0] !== "\n" && m[0] !== "\r") return m[0];
  return null;
}
