import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testServerCertificate } from "./test-ca.js";

// A small Redfish BMC over HTTPS on 127.0.0.1 (ephemeral port) for the shipped redfish-* commands: one
// ComputerSystem with PowerState and Status.Health (and summaries with a health of their own), HTTP Basic authentication, and ComputerSystem.Reset. A
// PowerCycle turns the system off, then on again (healthy) a moment later, as a hung machine's BMC would.

const SYSTEM = "/redfish/v1/Systems/System.Embedded.1";
const USER = "root";
const PASSWORD = "calvin-s3cret";
const MAX_BODY_BYTES = 4096;
const POWER_ON_AFTER_MS = 300;

export interface RedfishBmc {
  readonly port: number;
  /** The environment the shipped redfish-* commands need to reach this BMC, but KINTSUGI_BMC_ADDRESS. */
  readonly commandEnv: Readonly<Record<string, string>>;
  /** Every reset asked for with the right credentials, by ResetType, in order. */
  readonly resets: string[];
  /** Requests refused for their credentials. */
  unauthorized: number;
  powerState: "On" | "Off";
  health: "OK" | "Critical";
  close(): Promise<void>;
}

/** Starts the BMC with its system on and unhealthy (hung); writes the CA and the curl credentials into `dir`. */
export async function startRedfishBmc(dir: string): Promise<RedfishBmc> {
  const certificate = await testServerCertificate();
  const caFile = join(dir, "redfish-ca.pem");
  const credentialsFile = join(dir, "redfish-credentials");
  writeFileSync(caFile, certificate.ca.certPem);
  writeFileSync(credentialsFile, `user = "${USER}:${PASSWORD}"\n`, { mode: 0o600 });
  const timers = new Set<NodeJS.Timeout>();
  const bmc: RedfishBmc = {
    port: 0,
    commandEnv: {},
    resets: [],
    unauthorized: 0,
    powerState: "On",
    health: "Critical",
    close: () =>
      new Promise((done) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
  const answer = (res: ServerResponse, status: number, body?: object) => {
    res.writeHead(status, body ? { "content-type": "application/json" } : {});
    res.end(body ? JSON.stringify(body, null, 2) : undefined);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
    if (req.headers.authorization !== expected) {
      bmc.unauthorized++;
      return answer(res, 401, { error: { message: "Unauthorized" } });
    }
    if (req.method === "GET" && req.url === SYSTEM) {
      // As an iDRAC answers: the summaries carry a health of their own, which is not the system's.
      return answer(res, 200, {
        "@odata.id": SYSTEM,
        Id: "System.Embedded.1",
        ProcessorSummary: { Count: 2, Status: { Health: "OK", HealthRollup: "OK", State: "Enabled" } },
        MemorySummary: { TotalSystemMemoryGiB: 256, Status: { Health: "OK", HealthRollup: "OK", State: "Enabled" } },
        PowerState: bmc.powerState,
        Status: { Health: bmc.health, HealthRollup: bmc.health, State: "Enabled" },
      });
    }
    if (req.method === "POST" && req.url === `${SYSTEM}/Actions/ComputerSystem.Reset`) {
      let body = "";
      for await (const chunk of req) {
        body += String(chunk);
        if (body.length > MAX_BODY_BYTES) return answer(res, 413);
      }
      const resetType = (JSON.parse(body) as { ResetType?: unknown }).ResetType;
      if (resetType !== "PowerCycle") return answer(res, 400, { error: { message: `unsupported ResetType ${String(resetType)}` } });
      bmc.resets.push(resetType);
      bmc.powerState = "Off";
      const timer = setTimeout(() => {
        timers.delete(timer);
        bmc.powerState = "On";
        bmc.health = "OK";
      }, POWER_ON_AFTER_MS);
      timers.add(timer);
      return answer(res, 204);
    }
    return answer(res, 404, { error: { message: "not found" } });
  };
  const server: Server = createServer({ cert: certificate.certPem, key: certificate.keyPem }, (req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  Object.assign(bmc, {
    port,
    commandEnv: { KINTSUGI_REDFISH_PORT: String(port), KINTSUGI_REDFISH_CREDENTIALS_FILE: credentialsFile, KINTSUGI_REDFISH_CACERT: caFile },
  });
  return bmc;
}
