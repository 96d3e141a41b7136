/** A Kubernetes LabelSelector (metav1.LabelSelector), as CKE's `protected_namespaces` takes it. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: ReadonlyArray<LabelSelectorRequirement>;
}

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  readonly values?: readonly string[];
}

// Kubernetes' qualified name: an optional DNS-subdomain prefix and a name of at most 63 characters.
const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Returns why `key` is not a valid label key, or null when it is. */
export function labelKeyProblem(key: string): string | null {
  const slash = key.lastIndexOf("/");
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  if (prefix !== null && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) {
    return `invalid label key ${JSON.stringify(key)}: the prefix must be a DNS subdomain`;
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `invalid label key ${JSON.stringify(key)}: the name must be 1-63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
  }
  return null;
}

/** Returns why `value` is not a valid label value, or null when it is. */
export function labelValueProblem(value: string): string | null {
  if (value.length > 63 || !VALUE.test(value)) {
    return `invalid label value ${JSON.stringify(value)}: at most 63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
  }
  return null;
}

/**
 * Checks a selector as `metav1.LabelSelectorAsSelector` does: valid keys and values; In and NotIn need values;
 * Exists and DoesNotExist take none. Returns the path and reason of the first problem, or null.
 */
export function labelSelectorProblem(selector: LabelSelector): { path: string; message: string } | null {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const problem = labelKeyProblem(key) ?? labelValueProblem(value);
    if (problem) return { path: `matchLabels.${key}`, message: problem };
  }
  for (const [i, req] of (selector.matchExpressions ?? []).entries()) {
    const path = `matchExpressions[${i}]`;
    const keyProblem = labelKeyProblem(req.key);
    if (keyProblem) return { path: `${path}.key`, message: keyProblem };
    const values = req.values ?? [];
    if ((req.operator === "In" || req.operator === "NotIn") && values.length === 0) {
      return { path: `${path}.values`, message: `must be non-empty when operator is ${req.operator}` };
    }
    if ((req.operator === "Exists" || req.operator === "DoesNotExist") && values.length > 0) {
      return { path: `${path}.values`, message: `must be empty when operator is ${req.operator}` };
    }
    for (const [j, value] of values.entries()) {
      const valueProblem = labelValueProblem(value);
      if (valueProblem) return { path: `${path}.values[${j}]`, message: valueProblem };
    }
  }
  return null;
}

/**
 * Tells whether `labels` satisfy the selector. An empty selector (`{}`) selects everything, as in Kubernetes;
 * callers decide what an absent selector means (for CKE's protected namespaces: everything).
 */
export function matchesLabelSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, req.key);
    const value = labels[req.key];
    const values = req.values ?? [];
    switch (req.operator) {
      case "In":
        if (!has || !values.includes(value as string)) return false;
        break;
      case "NotIn":
        if (has && values.includes(value as string)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
    }
  }
  return true;
}

/**
 * Writes a selector in Kubernetes' string syntax, as `?labelSelector=` and `kubectl -l` take it:
 * `a=b,c in (x,y),d notin (z),e,!f`. matchLabels come first in insertion order, then matchExpressions in order.
 * The empty selector becomes `""`, which selects everything.
 */
export function labelSelectorToString(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const req of selector.matchExpressions ?? []) {
    const values = (req.values ?? []).join(",");
    switch (req.operator) {
      case "In":
        parts.push(`${req.key} in (${values})`);
        break;
      case "NotIn":
        parts.push(`${req.key} notin (${values})`);
        break;
      case "Exists":
        parts.push(req.key);
        break;
      case "DoesNotExist":
        parts.push(`!${req.key}`);
        break;
    }
  }
  return parts.join(",");
}

// A key or value token: anything up to an operator, a parenthesis, a comma or white space.
const TOKEN = "[^\\s=!(),<>]+";
const SET_RE = new RegExp(`^(${TOKEN})\\s+(in|notin)\\s*\\((.*)\\)$`);
const EQUALITY_RE = new RegExp(`^(${TOKEN})\\s*(==|=|!=)\\s*(${TOKEN})?$`);
const EXISTS_RE = new RegExp(`^(!?)\\s*(${TOKEN})$`);

/**
 * Reads Kubernetes' label selector syntax (the inverse of {@link labelSelectorToString}): `k=v` and `k==v` become
 * matchLabels (a second different value for the same key becomes an `In`), `k!=v` a `NotIn`, `k in (..)`,
 * `k notin (..)`, `k` and `!k` the matching expressions. `""` is the empty selector. The set-based `>`/`<` operators
 * have no LabelSelector form and are rejected. Throws an Error naming the selector and the bad requirement.
 */
export function parseLabelSelectorString(text: string): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  const fail = (why: string): never => {
    throw new Error(`invalid label selector ${JSON.stringify(text)}: ${why}`);
  };
  for (const raw of splitRequirements(text, fail)) {
    const part = raw.trim();
    if (part === "") fail("empty requirement");
    if (/[<>]/.test(part)) fail(`the > and < operators in ${JSON.stringify(part)} have no LabelSelector form`);
    const set = SET_RE.exec(part);
    const equality = set ? null : EQUALITY_RE.exec(part);
    const exists = set || equality ? null : EXISTS_RE.exec(part);
    let req: LabelSelectorRequirement | null = null;
    if (set) {
      const values = (set[3] ?? "").split(",").map((v) => v.trim());
      req = { key: set[1] ?? "", operator: set[2] === "in" ? "In" : "NotIn", values };
    } else if (equality) {
      const [, key = "", op, value = ""] = equality;
      if (op === "!=") req = { key, operator: "NotIn", values: [value] };
      else if (!Object.hasOwn(matchLabels, key)) matchLabels[key] = value;
      else if (matchLabels[key] !== value) req = { key, operator: "In", values: [value] };
      for (const problem of [labelKeyProblem(key), labelValueProblem(value)]) if (problem) fail(problem);
    } else if (exists) {
      req = { key: exists[2] ?? "", operator: exists[1] === "!" ? "DoesNotExist" : "Exists" };
    } else {
      fail(`cannot parse requirement ${JSON.stringify(part)}`);
    }
    if (req) {
      const problem = labelSelectorProblem({ matchExpressions: [req] });
      if (problem) fail(problem.message);
      matchExpressions.push(req);
    }
  }
  const selector: { matchLabels?: Record<string, string>; matchExpressions?: LabelSelectorRequirement[] } = {};
  if (Object.keys(matchLabels).length > 0) selector.matchLabels = matchLabels;
  if (matchExpressions.length > 0) selector.matchExpressions = matchExpressions;
  return selector;
}

// Splits at the commas that are not inside a parenthesised value list.
function splitRequirements(text: string, fail: (why: string) => never): string[] {
  if (text.trim() === "") return [];
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    if (depth < 0 || depth > 1) fail("unbalanced parentheses");
    if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) fail("unbalanced parentheses");
  parts.push(text.slice(start));
  return parts;
}
