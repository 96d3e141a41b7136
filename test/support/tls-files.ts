import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestCa, issueClientCertificate, testServerCertificate, type TestCa, type TestCertificate, type TestServerCertificate } from "./test-ca.js";

/** The PEM files of a TLS test, written into a test's directory: the server's, and clients' by name. */
export interface TlsTestFiles {
  /** The CA that signed the server's certificate (what `--ca` is given). */
  readonly serverCa: string;
  readonly serverCert: string;
  readonly serverKey: string;
  /** The CA that signs client certificates (`tls.client_ca_file`). */
  readonly clientCa: string;
  /** A client certificate and key signed by the client CA, by subject CN. */
  client(cn: string): { cert: string; key: string };
}

function writePair(dir: string, name: string, pair: TestCertificate): { cert: string; key: string } {
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  writeFileSync(cert, pair.certPem);
  writeFileSync(key, pair.keyPem, { mode: 0o600 });
  return { cert, key };
}

/**
 * Writes the shared test server certificate and a separate client CA into `dir`, and a client certificate for each
 * of `clientCns`; `strangers` are client certificates for those CNs signed by the server CA instead (one the server
 * does not trust for clients).
 */
export async function writeTlsTestFiles(
  dir: string,
  clientCns: readonly string[],
  strangers: readonly string[] = [],
): Promise<TlsTestFiles & { readonly server: TestServerCertificate; readonly clientCaPair: TestCa }> {
  const server = await testServerCertificate();
  const clientCaPair = await createTestCa("kintsugi test client CA");
  const serverCa = join(dir, "server-ca.pem");
  writeFileSync(serverCa, server.ca.certPem);
  const { cert: serverCert, key: serverKey } = writePair(dir, "server", server);
  const clientCa = join(dir, "client-ca.pem");
  writeFileSync(clientCa, clientCaPair.certPem);
  const clients = new Map<string, { cert: string; key: string }>();
  for (const cn of clientCns) clients.set(cn, writePair(dir, `client-${cn}`, await issueClientCertificate(clientCaPair, cn)));
  for (const cn of strangers) clients.set(`stranger:${cn}`, writePair(dir, `stranger-${cn}`, await issueClientCertificate(server.ca, cn)));
  return {
    server,
    clientCaPair,
    serverCa,
    serverCert,
    serverKey,
    clientCa,
    client(cn) {
      const pair = clients.get(cn);
      if (!pair) throw new Error(`no client certificate for ${cn} was written`);
      return pair;
    },
  };
}
