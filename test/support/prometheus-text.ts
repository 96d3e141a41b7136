import assert from "node:assert/strict";

/** One sample of Prometheus' text exposition format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus' text exposition format strictly enough to fail on anything malformed. */
export function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\w+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith("# HELP ")) continue;
    const m = /^(\w+)(?:\{(.*)\})? (-?[\d.e+]+|NaN|\+Inf|-Inf)$/.exec(line);
    assert.ok(m, `not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? "").split(/,(?=\w+=")/).filter(Boolean)) {
      const lm = /^(\w+)="((?:[^"\\]|\\.)*)"$/.exec(pair);
      assert.ok(lm, `bad label ${pair} in ${line}`);
      labels[lm[1] as string] = lm[2] as string;
    }
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

/** The value of the first sample named `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
