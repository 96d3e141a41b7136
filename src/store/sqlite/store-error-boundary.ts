import { asStoreError } from "./database-failure.js";

type Method = (...args: unknown[]) => unknown;

function translating(method: Method, self: object): Method {
  return (...args) => {
    let result: unknown;
    try {
      result = method.apply(self, args);
    } catch (err) {
      throw asStoreError(err);
    }
    return result instanceof Promise ? result.catch((err: unknown) => Promise.reject(asStoreError(err))) : result;
  };
}

/**
 * One part of the SQLite store (or the whole) as the rest of kintsugi sees it: whatever its methods throw, at once or
 * as a rejection, reaches callers in the store's vocabulary (a busy or failing file becomes StoreBusyError or
 * StoreUnavailableError; see asStoreError), so no code outside src/store/ learns better-sqlite3's error codes. Reads
 * fail this way too (a corrupt page), not only writes. The part's methods run on the part itself, not on the wrapper.
 */
export function withStoreErrors<T extends object>(part: T): T {
  const wrapped = new Map<PropertyKey, Method>();
  return new Proxy(part, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      let method = wrapped.get(key);
      if (method === undefined) {
        method = translating(value as Method, target);
        wrapped.set(key, method);
      }
      return method;
    },
  });
}
