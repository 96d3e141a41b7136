// A scheme, "//", and everything up to the last "@" before the path, query or fragment: the URL's user information.
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

/** Whether `url` parses as a URL that carries a user name or a password (`http://user:password@host`). */
export function hasUrlCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}

/**
 * `text` with the user information of every URL in it replaced by `***` (`http://***@host/`), so that a message
 * quoting a URL never shows a password, wherever in the text the URL is.
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(USER_INFO, "$1***@");
}
