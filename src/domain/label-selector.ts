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
