// Characters a terminal or a log reader may act on instead of showing: C0 and C1 controls, DEL, the Unicode line
// and paragraph separators, and the bidirectional overrides and isolates that reorder what is shown.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

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
