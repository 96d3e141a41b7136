// npm run bench:kube: what one Kubernetes API call costs kintsugi in CPU, and how many TLS connections a run of them
// opens, against the test API server on 127.0.0.1 (its side of each handshake is counted too: one process serves
// and calls). KINTSUGI_BENCH_CALLS sets the number of calls (300).
import { KubeNodeOperator } from "../src/adapters/kube-node-operator.js";
import { startFakeKubeApi } from "../test/support/fake-kube-api.js";

const CALLS = Number(process.env.KINTSUGI_BENCH_CALLS ?? 300);
const NODES = 15;

const fake = await startFakeKubeApi();
try {
  for (let i = 0; i < NODES; i++) fake.addNode({ name: `node-${i}`, internalIP: `10.0.0.${i}` });
  const kube = KubeNodeOperator.fromKubeconfig(fake.kubeconfigPath);
  // The first call loads and compiles what the rest reuse.
  await kube.listNodes();
  const handshakesBefore = fake.tlsConnections;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await kube.listNodes();
  const wallMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const cpuMs = (user + system) / 1000;
  console.log(`${CALLS} node lists of ${NODES} nodes, one after another:`);
  console.log(`  TLS connections opened: ${fake.tlsConnections - handshakesBefore}`);
  console.log(`  CPU: ${cpuMs.toFixed(0)} ms (${(cpuMs / CALLS).toFixed(2)} ms a call, client and server)`);
  console.log(`  wall: ${wallMs.toFixed(0)} ms`);
} finally {
  await fake.close();
}
