// The demo's "hardware": `node machine.mjs SABAKAN_URL health|repair ADDRESS`. health prints true when sabakan says
// the machine is HEALTHY; repair waits a moment (as a power cycle would) and sets it HEALTHY in sabakan.
const [url, action, address] = process.argv.slice(2);

async function gql(query, variables) {
  const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  const body = await res.json();
  if (body.errors) throw new Error(body.errors.map((e) => e.message).join("; "));
  return body.data;
}

const { searchMachines } = await gql(`{ searchMachines { spec { serial ipv4 } status { state } } }`);
const machine = searchMachines.find((m) => m.spec.ipv4[0] === address);
if (!machine) {
  console.error(`no machine has address ${address}`);
  process.exit(2);
}
if (action === "health") {
  console.log(machine.status.state === "HEALTHY" ? "true" : "false");
} else if (action === "repair") {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await gql(`mutation($s: ID!) { setMachineState(serial: $s, state: HEALTHY) { state } }`, { s: machine.spec.serial });
  console.log(`${machine.spec.serial} (${address}) power-cycled and healthy again`);
} else {
  console.error(`unknown action ${action}`);
  process.exit(2);
}
