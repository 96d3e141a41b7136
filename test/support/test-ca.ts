// Certificates for the test servers, made with the openssl command. Always through async child processes: a test
// process that serves a fake must not block its event loop while they run.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const DAYS = "3650";
// P-256 keys are made in milliseconds, and every TLS client (node, Go's kubectl) accepts them.
const NEW_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** A certificate authority: its certificate (the trust anchor clients are given) and its private key. */
export interface TestCa {
  readonly certPem: string;
  readonly keyPem: string;
}

/** What a TLS server presents: a certificate for 127.0.0.1 and localhost, signed by {@link ca}, and its key. */
export interface TestServerCertificate {
  readonly ca: TestCa;
  readonly certPem: string;
  readonly keyPem: string;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run("openssl", args, { timeout: 30_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || String(error)}`, { cause: error });
  }
}

/** Runs `make` in a fresh temporary directory, which is removed afterwards. */
async function inTempDir<T>(make: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "kintsugi-test-ca-"));
  try {
    return await make(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Makes a new self-signed certificate authority named `commonName`. */
export function createTestCa(commonName: string): Promise<TestCa> {
  return inTempDir(async (dir) => {
    const cert = join(dir, "ca.crt");
    const key = join(dir, "ca.key");
    // A minimal config of our own, so that no system openssl.cnf adds or changes extensions.
    const config = join(dir, "ca.cnf");
    await writeFile(
      config,
      [
        "[req]",
        "distinguished_name = dn",
        "x509_extensions = ca",
        "[dn]",
        "[ca]",
        "basicConstraints = critical, CA:TRUE",
        "keyUsage = critical, keyCertSign, cRLSign",
        "subjectKeyIdentifier = hash",
        "",
      ].join("\n"),
    );
    await openssl(["req", "-x509", "-new", ...NEW_KEY, "-config", config, "-subj", `/CN=${commonName}`, "-days", DAYS, "-keyout", key, "-out", cert]);
    return { certPem: await readFile(cert, "utf8"), keyPem: await readFile(key, "utf8") };
  });
}

/** A certificate and its key, signed by a test CA. */
export interface TestCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}

/** Makes a certificate for subject CN `commonName` with these X.509 v3 extensions, signed by `ca`. */
function issueCertificate(ca: TestCa, commonName: string, extensionLines: readonly string[]): Promise<TestCertificate> {
  return inTempDir(async (dir) => {
    const [caCert, caKey, csr, cert, key, extensions] = ["ca.crt", "ca.key", "leaf.csr", "leaf.crt", "leaf.key", "leaf.ext"].map((f) => join(dir, f)) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    await writeFile(caCert, ca.certPem);
    await writeFile(caKey, ca.keyPem, { mode: 0o600 });
    await writeFile(extensions, [...extensionLines, "authorityKeyIdentifier = keyid", ""].join("\n"));
    await openssl(["req", "-new", ...NEW_KEY, "-subj", `/CN=${commonName}`, "-keyout", key, "-out", csr]);
    const serial = `0x${randomBytes(8).toString("hex")}`;
    await openssl(["x509", "-req", "-in", csr, "-CA", caCert, "-CAkey", caKey, "-set_serial", serial, "-days", DAYS, "-extfile", extensions, "-out", cert]);
    return { certPem: await readFile(cert, "utf8"), keyPem: await readFile(key, "utf8") };
  });
}

/** Makes a server certificate for IP 127.0.0.1 and DNS localhost, signed by `ca`. */
export async function issueServerCertificate(ca: TestCa): Promise<TestServerCertificate> {
  const leaf = await issueCertificate(ca, "127.0.0.1", [
    "basicConstraints = critical, CA:FALSE",
    "keyUsage = critical, digitalSignature",
    "extendedKeyUsage = serverAuth",
    "subjectAltName = IP:127.0.0.1, DNS:localhost",
  ]);
  return { ca, ...leaf };
}

/** Makes a client certificate (TLS client authentication) for subject CN `commonName`, signed by `ca`. */
export function issueClientCertificate(ca: TestCa, commonName: string): Promise<TestCertificate> {
  return issueCertificate(ca, commonName, ["basicConstraints = critical, CA:FALSE", "keyUsage = critical, digitalSignature", "extendedKeyUsage = clientAuth"]);
}

let shared: Promise<TestServerCertificate> | null = null;

/**
 * The test CA and its certificate for 127.0.0.1, made once per process (on first use) and shared by every test
 * server in it. A failure is not cached: the next caller tries again.
 */
export function testServerCertificate(): Promise<TestServerCertificate> {
  shared ??= createTestCa("kintsugi test CA")
    .then(issueServerCertificate)
    .catch((error: unknown) => {
      shared = null;
      throw error;
    });
  return shared;
}
