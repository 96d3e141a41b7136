import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { checkConfigCommand } from "../../src/cli/serve-command.js";
import { ConfigError } from "../../src/config/load-config.js";
import { runStartChecks, START_CHECKS, type StartCheck, type StartEnvironment } from "../../src/wiring/start-checks.js";
import { startCliInProcess } from "../support/in-process-cli.js";
import type { CliResult } from "../support/run-cli.js";
import { tempDir } from "../support/temp-dir.js";
import { testServerCertificate } from "../support/test-ca.js";

// The environment of both runs: not in a Pod, no operator token.
const { KUBERNETES_SERVICE_HOST: _host, KUBERNETES_SERVICE_PORT: _port, KINTSUGI_TOKEN: _token, ...ENV } = process.env;
const IN_POD: StartEnvironment = { ...ENV, KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
const SHA = "a".repeat(64);

// `extra`: sections the good config leaves out (store, etcd, sabakan, runner).
type Section = "listen" | "database" | "auth" | "tls" | "kubernetes" | "repair" | "extra";

/** A config that passes every start check: each section names files that exist and are what they should be. */
function goodSections(dir: string): Record<Section, string> {
  const at = (name: string) => JSON.stringify(join(dir, name));
  return {
    listen: `listen: "127.0.0.1:0"`,
    database: `database: ${at("state/k.db")}`,
    extra: "",
    auth: `auth: { anonymous: operator, tokens_file: ${at("tokens.yaml")} }`,
    tls: `tls: { cert_file: ${at("server.pem")}, key_file: ${at("server.key")} }`,
    kubernetes: `kubernetes: { kubeconfig: ${at("kubeconfig")} }`,
    repair:
      `repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: unreachable\n` +
      `          repair_steps: [{ repair_command: [${at("fix")}] }]\n          health_check_command: [echo, "true"]`,
  };
}

async function writeGoodFiles(dir: string): Promise<void> {
  const server = await testServerCertificate();
  writeFileSync(join(dir, "server.pem"), server.certPem);
  writeFileSync(join(dir, "server.key"), server.keyPem, { mode: 0o600 });
  writeFileSync(join(dir, "tokens.yaml"), `- { name: ops, role: admin, sha256: "${SHA}" }\n`);
  const kubeconfig = {
    clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:6443" } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  };
  writeFileSync(join(dir, "kubeconfig"), JSON.stringify(kubeconfig));
  writeFileSync(join(dir, "fix"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
}

/** One way serve refuses to start: what is changed in the good config or its files, and what both commands say. */
interface RefusalCase {
  readonly name: string;
  readonly check: StartCheck;
  readonly sections?: (dir: string) => Partial<Record<Section, string>>;
  /** The whole file instead of its sections. */
  readonly text?: string;
  readonly prepare?: (dir: string) => void;
  readonly says: RegExp;
}

const REPAIR_WITH = (step: string, health = `[echo, "true"]`) =>
  `repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [${step}]\n          health_check_command: ${health}`;

const CASES: readonly RefusalCase[] = [
  {
    name: "a config file that does not exist",
    check: "config-file",
    prepare: (dir) => rmSync(join(dir, "k.yaml")),
    says: /k\.yaml: cannot read the config file: no such file$/,
  },
  { name: "a config file that is not YAML", check: "yaml", text: "repair: [unclosed\n", says: /k\.yaml: invalid YAML at line/ },
  {
    name: "a value out of range",
    check: "schema",
    sections: () => ({ repair: "repair: { max_concurrent_repairs: 0 }" }),
    says: /k\.yaml: repair\.max_concurrent_repairs: must be > 0$/,
  },
  {
    name: "proof of repair no entry could gather",
    check: "schema",
    sections: () => ({ repair: `${REPAIR_WITH("{ repair_command: [echo], watch_seconds: 60 }")}\n          success_requires: [sabakan_healthy]` }),
    says: /success_requires\[0\]: operation "unreachable": success_requires sabakan_healthy can never hold without a sabakan section/,
  },
  {
    name: "a listener off loopback without an auth section",
    check: "schema",
    sections: () => ({ listen: `listen: "0.0.0.0:0"`, auth: "" }),
    says: /k\.yaml: auth: listen address 0\.0\.0\.0 is not a loopback address/,
  },
  {
    name: "credentials in sabakan.url",
    check: "schema",
    sections: () => ({ extra: `sabakan: { url: "http://u:p@127.0.0.1:10080" }` }),
    says: /k\.yaml: sabakan\.url: must not hold a user name or password/,
  },
  {
    name: "a tokens file that is not a list",
    check: "tokens-file",
    prepare: (dir) => writeFileSync(join(dir, "tokens.yaml"), "name: ops\n"),
    says: /auth\.tokens_file: .*tokens\.yaml: must be a YAML list of \{ name, role, sha256 \}$/,
  },
  {
    name: "a token name in auth.tokens and the tokens file",
    check: "tokens-file",
    sections: (dir) => ({
      auth: `auth: { anonymous: operator, tokens_file: ${JSON.stringify(join(dir, "tokens.yaml"))}, tokens: [{ name: ops, role: viewer, sha256: "${SHA}" }] }`,
    }),
    says: /auth\.tokens: token names must be unique .*: ops$/,
  },
  {
    name: "a TLS key that cannot be read",
    check: "tls-files",
    prepare: (dir) => (rmSync(join(dir, "server.key")), mkdirSync(join(dir, "server.key"))),
    says: /tls\.key_file: .*server\.key: cannot read: is a directory$/,
  },
  {
    name: "a TLS certificate file without a certificate",
    check: "tls-files",
    prepare: (dir) => writeFileSync(join(dir, "server.pem"), "hello\n"),
    says: /tls\.cert_file: .*server\.pem: no PEM certificate/,
  },
  {
    name: "an etcd CA file that does not exist",
    check: "etcd-tls-files",
    sections: (dir) => ({ extra: `store: etcd\netcd: { endpoints: ["https://127.0.0.1:2379"], tls-ca-file: ${JSON.stringify(join(dir, "missing-ca.pem"))} }` }),
    says: /etcd\.tls-ca-file: .*missing-ca\.pem: cannot read: no such file$/,
  },
  {
    name: "a kubeconfig that does not exist",
    check: "kubeconfig",
    prepare: (dir) => rmSync(join(dir, "kubeconfig")),
    says: /kubernetes\.kubeconfig: .*kubeconfig: cannot read the kubeconfig: no such file$/,
  },
  {
    name: "a kubeconfig that never ends (/dev/zero), refused at the bound",
    check: "kubeconfig",
    prepare: (dir) => {
      rmSync(join(dir, "kubeconfig"));
      symlinkSync("/dev/zero", join(dir, "kubeconfig"));
    },
    says: /kubernetes\.kubeconfig: .*kubeconfig: cannot read the kubeconfig: larger than 16777216 bytes$/,
  },
  {
    name: "a kubeconfig without a current context",
    check: "kubeconfig",
    prepare: (dir) => writeFileSync(join(dir, "kubeconfig"), "clusters: []\n"),
    says: /kubernetes\.kubeconfig: .*kubeconfig: the kubeconfig has no current-context$/,
  },
  {
    name: "in-cluster credentials outside a Pod",
    check: "in-cluster-credentials",
    sections: () => ({ kubernetes: "kubernetes: {}" }),
    says: /k\.yaml: kubernetes: names no kubeconfig, .*KUBERNETES_SERVICE_HOST is not set/,
  },
  {
    name: "a repair command that is not executable",
    check: "commands",
    prepare: (dir) => chmodSync(join(dir, "fix"), 0o644),
    says: /repair_steps\[0\]\.repair_command: ".*fix": is not executable/,
  },
  {
    name: "a repair command that does not exist",
    check: "commands",
    prepare: (dir) => rmSync(join(dir, "fix")),
    says: /repair_steps\[0\]\.repair_command: ".*fix": no such file$/,
  },
  {
    name: "a health check program that is in no directory of PATH",
    check: "commands",
    sections: (dir) => ({ repair: REPAIR_WITH(`{ repair_command: [${JSON.stringify(join(dir, "fix"))}] }`, "[no-such-kintsugi-health-check]") }),
    says: /repair_operations\[0\]\.health_check_command: "no-such-kintsugi-health-check": no executable of that name in any directory of PATH$/,
  },
  {
    name: "a database whose directory is a file",
    check: "database-path",
    prepare: (dir) => writeFileSync(join(dir, "state"), "a file where the directory should be"),
    says: /k\.yaml: database: .*state\/k\.db: cannot be created: .*\/state is not a directory$/,
  },
];

/** Writes the good files and a config (the good one with `sections` laid over it) into a new directory. */
async function world(
  sections: (dir: string) => Partial<Record<Section, string>> = () => ({}),
  text?: string,
): Promise<{ dir: string; file: string; remove: () => void }> {
  const temp = tempDir("kintsugi-start-refusals-");
  await writeGoodFiles(temp.path);
  const file = join(temp.path, "k.yaml");
  const all = { ...goodSections(temp.path), ...sections(temp.path) };
  writeFileSync(
    file,
    text ??
      `${Object.values(all)
        .filter((s) => s !== "")
        .join("\n")}\n`,
  );
  return { dir: temp.path, file, remove: temp.remove };
}

/** `kintsugi check-config FILE` in this process, printed as the CLI prints it (ConfigError: `kintsugi: ...`, exit 1). */
async function checkConfig(file: string, env: StartEnvironment = ENV): Promise<CliResult> {
  let stdout = "";
  try {
    await checkConfigCommand((text) => void (stdout += text), env)
      .exitOverride()
      .parseAsync([file], { from: "user" });
    return { code: 0, stdout, stderr: "" };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // As the CLI's main prints an operator's error: every line prefixed.
    return {
      code: 1,
      stdout,
      stderr: err.message
        .split("\n")
        .map((line) => `kintsugi: ${line}\n`)
        .join(""),
    };
  }
}

/**
 * `kintsugi serve --config FILE`, in this process as the binary runs it, which must refuse before it opens anything:
 * it returns with its exit code instead of serving (the real binary's refusals are test/cli/serve-cli.test.ts's).
 */
async function refusedServe(file: string, dir: string): Promise<CliResult> {
  const serve = startCliInProcess(["serve", "--config", file], { cwd: dir, env: ENV });
  let timer: NodeJS.Timeout | undefined;
  const serving = new Promise<"serving">((resolve) => (timer = setTimeout(() => resolve("serving"), 30_000)));
  const code = await Promise.race([serve.exited, serving]);
  clearTimeout(timer);
  if (code === "serving") {
    await serve.stop();
    assert.fail(`serve started\n${serve.err()}`);
  }
  assert.equal(existsSync(join(dir, "state", "k.db")), false, "serve created the database");
  return { code, stdout: serve.out(), stderr: serve.err() };
}

describe("check-config reports what serve refuses at start, for every start check (serve in-process)", { concurrency: 4 }, () => {
  it("every start check has a case", () => {
    assert.deepEqual(
      START_CHECKS.filter((check) => !CASES.some((c) => c.check === check)),
      [],
    );
  });

  it("the good config passes every check: check-config says ok", async () => {
    const w = await world();
    try {
      assert.deepEqual(await checkConfig(w.file), { code: 0, stdout: `${w.file}: ok\n`, stderr: "" });
      const inPod = await world(() => ({ kubernetes: "kubernetes: {}" }));
      try {
        assert.deepEqual(await checkConfig(inPod.file, IN_POD), { code: 0, stdout: `${inPod.file}: ok\n`, stderr: "" }, "kubernetes: {} in a Pod");
      } finally {
        inPod.remove();
      }
    } finally {
      w.remove();
    }
  });

  for (const c of CASES) {
    it(`${c.check}: ${c.name}`, async () => {
      const w = await world(c.sections, c.text);
      try {
        c.prepare?.(w.dir);
        const checked = await checkConfig(w.file);
        const report = await runStartChecks(w.file, ENV);
        assert.deepEqual([...new Set(report.problems.map((p) => p.check))], [c.check], checked.stderr);
        assert.equal(checked.code, 1);
        assert.match(checked.stderr.trimEnd(), c.says);
        const served = await refusedServe(w.file, w.dir);
        assert.equal(served.code, 1, served.stderr);
        assert.equal(served.stderr, checked.stderr, "serve and check-config report the same problems");
      } finally {
        w.remove();
      }
    });
  }

  it("three problems in three files: check-config names all three, serve the same", async () => {
    const w = await world();
    try {
      rmSync(join(w.dir, "kubeconfig"));
      rmSync(join(w.dir, "server.key"));
      mkdirSync(join(w.dir, "server.key"));
      writeFileSync(join(w.dir, "tokens.yaml"), "name: ops\n");
      const checked = await checkConfig(w.file);
      const lines = checked.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 3, checked.stderr);
      assert.match(lines[0] as string, /^kintsugi: .*k\.yaml: auth\.tokens_file: /);
      assert.match(lines[1] as string, /^kintsugi: .*k\.yaml: tls\.key_file: /);
      assert.match(lines[2] as string, /^kintsugi: .*k\.yaml: kubernetes\.kubeconfig: /);
      assert.equal((await refusedServe(w.file, w.dir)).stderr, checked.stderr);
    } finally {
      w.remove();
    }
  });

  it("a warning is no refusal: check-config prints it on stdout and says ok", async () => {
    const w = await world((dir) => ({ repair: REPAIR_WITH(`{ repair_command: [${JSON.stringify(join(dir, "fix"))}] }`).replace("[qemu]", '["IPMI 2.0"]') }));
    try {
      assert.deepEqual(await checkConfig(w.file), {
        code: 0,
        stdout: `${w.file}: warning: repair.repair_procedures[0].machine_types[0]: "IPMI 2.0" can never be a sabakan machine's BMC type (sabakan accepts letters, digits, '-', '_', '/' and '.'): only entries added by hand would use this procedure\n${w.file}: ok\n`,
        stderr: "",
      });
    } finally {
      w.remove();
    }
  });

  it("a problem the schema finds does not hide a file's", async () => {
    const w = await world(() => ({ extra: "runner: { interval_seconds: 0 }" }));
    try {
      rmSync(join(w.dir, "fix"));
      writeFileSync(join(w.dir, "tokens.yaml"), "name: ops\n");
      const report = await runStartChecks(w.file, ENV);
      assert.deepEqual(
        report.problems.map((p) => [p.check, p.path]),
        [
          ["schema", "runner.interval_seconds"],
          ["tokens-file", "auth.tokens_file"],
          ["commands", "repair.repair_procedures[0].repair_operations[0].repair_steps[0].repair_command"],
        ],
      );
    } finally {
      w.remove();
    }
  });

  it("a malformed key of the auth section does not hide its tokens file's problem", async () => {
    const w = await world((dir) => ({
      auth: `auth: { anonymous: operator, tokens_file: ${JSON.stringify(join(dir, "tokens.yaml"))}, tokens: [{ name: ops }] }`,
    }));
    try {
      writeFileSync(join(w.dir, "tokens.yaml"), "name: ops\n");
      const report = await runStartChecks(w.file, ENV);
      assert.deepEqual(
        report.problems.map((p) => [p.check, p.path]),
        [
          ["schema", "auth.tokens[0].role"],
          ["schema", "auth.tokens[0].sha256"],
          ["tokens-file", "auth.tokens_file"],
        ],
      );
    } finally {
      w.remove();
    }
  });
});
