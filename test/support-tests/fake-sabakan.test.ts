import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ClientError, GraphQLClient } from "graphql-request";
import { loadSabakanTypeDefs, startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";

const T0 = Date.parse("2026-03-01T00:00:00Z");
const DAY = 86_400_000;

const SEARCH = /* GraphQL */ `
  query SearchMachines($having: MachineParams, $notHaving: MachineParams) {
    searchMachines(having: $having, notHaving: $notHaving) {
      spec { serial labels { name value } rack indexInRack role ipv4 registerDate retireDate bmc { bmcType } }
      status { state timestamp duration }
    }
  }
`;
const MACHINE = `query($serial: ID!) { machine(serial: $serial) { spec { serial } status { state timestamp duration } } }`;
const SET_STATE = `mutation($serial: ID!, $state: MachineState!) { setMachineState(serial: $serial, state: $state) { state timestamp duration } }`;

interface Status {
  state: string;
  timestamp: string;
  duration: number;
}
interface SearchResult {
  searchMachines: Array<{ spec: { serial: string; labels: Array<{ name: string; value: string }> | null }; status: Status }>;
}

/** A fake on a clock the test moves, closed afterwards. */
async function withFake(fn: (fake: FakeSabakan, clock: { t: number }, client: GraphQLClient) => Promise<void>): Promise<void> {
  const clock = { t: T0 };
  const fake = await startFakeSabakan({ now: () => clock.t });
  try {
    await fn(fake, clock, new GraphQLClient(`${fake.url}/graphql`));
  } finally {
    await fake.close();
  }
}

function post(fake: FakeSabakan, body: unknown, contentType = "application/json"): Promise<Response> {
  return fetch(`${fake.url}/graphql`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function clientError(p: Promise<unknown>): Promise<ClientError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ClientError) return err;
    throw err;
  }
  assert.fail("expected a ClientError");
}

describe("test sabakan: searchMachines matches as sabakan's gql/match.go", () => {
  let fake: FakeSabakan;
  let client: GraphQLClient;
  before(async () => {
    fake = await startFakeSabakan({ now: () => T0 });
    client = new GraphQLClient(`${fake.url}/graphql`);
    // Added out of serial order on purpose.
    fake.addMachine({ serial: "s05", rack: 1, labels: { zone: "a", gpu: "yes" }, retireDate: T0 + 100 * DAY });
    fake.addMachine({ serial: "s01", rack: 1, role: "boot", state: "UNHEALTHY", labels: { zone: "a" }, retireDate: T0 + 10 * DAY });
    fake.addMachine({ serial: "s03", rack: 2, state: "UNREACHABLE", labels: { zone: "b", gpu: "yes" }, retireDate: T0 + 10 * DAY - 1 });
    fake.addMachine({ serial: "s02", rack: 3, role: "ss", state: "UNHEALTHY", retireDate: T0 - DAY / 2 });
    fake.addMachine({ serial: "s04", rack: 2, state: "RETIRED", labels: { zone: "a", gpu: "no" } });
  });
  after(() => fake.close());

  const label = (name: string, value: string) => ({ name, value });
  const all = ["s01", "s02", "s03", "s04", "s05"];
  const cases: Array<{ name: string; having?: object | null; notHaving?: object | null; expected: string[] }> = [
    { name: "no params: every machine, sorted by serial", having: null, notHaving: null, expected: all },
    {
      name: "null and [] lists constrain nothing",
      having: { labels: [], racks: [], roles: null, states: [] },
      notHaving: { labels: null, racks: [], roles: [], states: null },
      expected: all,
    },
    { name: "having labels: all must be present with that value", having: { labels: [label("zone", "a"), label("gpu", "yes")] }, expected: ["s05"] },
    { name: "having one label", having: { labels: [label("gpu", "yes")] }, expected: ["s03", "s05"] },
    { name: "notHaving labels: any one excludes", notHaving: { labels: [label("zone", "b"), label("gpu", "no")] }, expected: ["s01", "s02", "s05"] },
    { name: "notHaving a label with another value excludes nothing", notHaving: { labels: [label("zone", "c")] }, expected: all },
    { name: "having racks: one of the list", having: { racks: [1, 3] }, expected: ["s01", "s02", "s05"] },
    { name: "notHaving racks", notHaving: { racks: [2] }, expected: ["s01", "s02", "s05"] },
    { name: "having roles", having: { roles: ["boot"] }, expected: ["s01"] },
    { name: "notHaving roles", notHaving: { roles: ["boot"] }, expected: ["s02", "s03", "s04", "s05"] },
    { name: "having states", having: { states: ["UNHEALTHY", "UNREACHABLE"] }, expected: ["s01", "s02", "s03"] },
    { name: "notHaving states", notHaving: { states: ["HEALTHY", "RETIRED"] }, expected: ["s01", "s02", "s03"] },
    { name: "having minDaysBeforeRetire keeps days == min (10 days exactly)", having: { minDaysBeforeRetire: 10 }, expected: ["s01", "s04", "s05"] },
    { name: "having minDaysBeforeRetire one above the boundary", having: { minDaysBeforeRetire: 11 }, expected: ["s04", "s05"] },
    { name: "notHaving minDaysBeforeRetire excludes days >= min (10 days less 1 ms is 9)", notHaving: { minDaysBeforeRetire: 10 }, expected: ["s02", "s03"] },
    { name: "days truncate toward zero: half a day past retirement is day 0, not -1", notHaving: { minDaysBeforeRetire: 0 }, expected: [] },
    { name: "having minDaysBeforeRetire 0 keeps the machine half a day past retirement", having: { minDaysBeforeRetire: 0 }, expected: all },
    { name: "kintsugi's default variables", having: { states: ["UNHEALTHY", "UNREACHABLE"] }, notHaving: { roles: ["boot"] }, expected: ["s02", "s03"] },
    { name: "having and notHaving on the same rack cancel out", having: { racks: [2] }, notHaving: { racks: [2] }, expected: [] },
    {
      name: "fields AND across having and notHaving",
      having: { racks: [1, 2], labels: [label("gpu", "yes")] },
      notHaving: { states: ["HEALTHY"] },
      expected: ["s03"],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const data = await client.request<SearchResult>(SEARCH, { having: c.having, notHaving: c.notHaving });
      assert.deepEqual(
        data.searchMachines.map((m) => m.spec.serial),
        c.expected,
      );
    });
  }
});

describe("test sabakan: schema and answers", () => {
  it("is built from sabakan's own schema file (the fixture)", async () => {
    assert.match(loadSabakanTypeDefs(), /^\s*input MachineParams \{/m);
    await withFake(async (_fake, _clock, client) => {
      const data = await client.request<{ __type: { inputFields: Array<{ name: string }> } }>(`{ __type(name: "MachineParams") { inputFields { name } } }`);
      assert.deepEqual(
        data.__type.inputFields.map((f) => f.name),
        ["labels", "racks", "roles", "states", "minDaysBeforeRetire"],
      );
    });
  });

  it("writes DateTime as Go's RFC3339Nano, duration as Go's %g, labels sorted or null", async () => {
    await withFake(async (fake, _clock, client) => {
      fake.addMachine({ serial: "a", rack: 1, stateSince: T0 - 1_200_000_000, registerDate: T0, retireDate: T0 + 120, labels: { z: "1", a: "2" } });
      fake.addMachine({ serial: "b", rack: 1, stateSince: "2026-02-28T23:59:59.123456789Z" });
      const raw = await (await post(fake, { query: SEARCH })).text();
      assert.match(raw, /"duration":1\.2e\+06[,}]/);
      assert.match(raw, /"registerDate":"2026-03-01T00:00:00Z"/);
      assert.match(raw, /"retireDate":"2026-03-01T00:00:00\.12Z"/);
      assert.match(raw, /"timestamp":"2026-02-28T23:59:59\.123456789Z"/);
      const [a, b] = (await client.request<SearchResult>(SEARCH)).searchMachines;
      assert.equal(a?.status.duration, 1_200_000);
      assert.deepEqual(a?.spec.labels, [
        { name: "a", value: "2" },
        { name: "z", value: "1" },
      ]);
      assert.equal(b?.spec.labels, null);
      assert.ok(Math.abs((b?.status.duration ?? 0) - 0.876543211) < 1e-9);
    });
  });

  it("fills a machine's defaults", async () => {
    await withFake(async (fake, _clock, client) => {
      fake.addMachine({ serial: "x1", rack: 7 });
      fake.addMachine({ serial: "x2", rack: 7 });
      const data = await client.request<{ machine: { spec: Record<string, unknown>; info: unknown } }>(
        `{ machine(serial: "x2") { spec { rack indexInRack role ipv4 registerDate retireDate bmc { bmcType ipv4 } } info { bmc { ipv4 { address } } } } }`,
      );
      assert.deepEqual(data.machine.spec, {
        rack: 7,
        indexInRack: 2,
        role: "cs",
        ipv4: ["10.7.0.2"],
        registerDate: "2026-01-30T00:00:00Z",
        retireDate: "2031-02-28T00:00:00Z",
        bmc: { bmcType: "IPMI-2.0", ipv4: "10.7.1.2" },
      });
      assert.deepEqual(data.machine.info, { bmc: { ipv4: { address: "10.7.1.2" } } });
      assert.equal(fake.machines().length, 2);
      assert.throws(() => fake.addMachine({ serial: "x1", rack: 1 }), /already exists/);
    });
  });

  it("computes duration at query time, so it grows with the clock", async () => {
    await withFake(async (fake, clock, client) => {
      fake.addMachine({ serial: "m", rack: 1, state: "UNREACHABLE" });
      const at = async () => (await client.request<{ machine: { status: Status } }>(MACHINE, { serial: "m" })).machine.status.duration;
      assert.equal(await at(), 0);
      clock.t += 90_500;
      assert.equal(await at(), 90.5);
      clock.t += 3 * DAY;
      assert.equal(await at(), 90.5 + 3 * 86_400);
    });
  });

  it('answers machine(serial), and a bare "not found" for an unknown serial, as sabakan does', async () => {
    await withFake(async (fake, _clock, client) => {
      fake.addMachine({ serial: "known", rack: 1, state: "UNHEALTHY" });
      const data = await client.request<{ machine: { spec: { serial: string }; status: Status } }>(MACHINE, { serial: "known" });
      assert.equal(data.machine.status.state, "UNHEALTHY");
      const res = await post(fake, { query: MACHINE, variables: { serial: "nope" } });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { errors: [{ message: "not found", path: ["machine"] }], data: null });
      const err = await clientError(client.request(MACHINE, { serial: "nope" }));
      assert.equal(err.response.errors?.[0]?.message, "not found");
    });
  });
});

describe("test sabakan: setMachineState follows sabakan's transitions", () => {
  it("changes the state and its timestamp on a permitted transition", async () => {
    await withFake(async (fake, clock, client) => {
      fake.addMachine({ serial: "m", rack: 1, stateSince: T0 - DAY });
      clock.t += 1234;
      const data = await client.request<{ setMachineState: Status }>(SET_STATE, { serial: "m", state: "UNHEALTHY" });
      assert.deepEqual(data.setMachineState, { state: "UNHEALTHY", timestamp: "2026-03-01T00:00:01.234Z", duration: 0 });
      assert.equal(fake.machine("m")?.state, "UNHEALTHY");
    });
  });

  it("keeps the timestamp on a transition to the same state", async () => {
    await withFake(async (fake, _clock, client) => {
      fake.addMachine({ serial: "m", rack: 1, state: "UNREACHABLE", stateSince: T0 - 60_000 });
      const data = await client.request<{ setMachineState: Status }>(SET_STATE, { serial: "m", state: "UNREACHABLE" });
      assert.deepEqual(data.setMachineState, { state: "UNREACHABLE", timestamp: "2026-02-28T23:59:00Z", duration: 60 });
    });
  });

  // sabakan v3.1.9's machines.go, `permittedTransitions`, written out here independently of the fake's table: every
  // pair of states is a case, so the fake permits exactly what sabakan permits and refuses the rest.
  const sabakanPermits: Record<string, string[]> = {
    UNINITIALIZED: ["HEALTHY", "RETIRING"],
    HEALTHY: ["UNHEALTHY", "UNREACHABLE", "UPDATING", "RETIRING"],
    UNHEALTHY: ["HEALTHY", "UNREACHABLE", "UPDATING", "RETIRING"],
    UNREACHABLE: ["HEALTHY", "UNHEALTHY", "UPDATING", "RETIRING"],
    UPDATING: ["UNINITIALIZED"],
    RETIRING: ["RETIRED"],
    RETIRED: ["UNINITIALIZED"],
  };
  const states = Object.keys(sabakanPermits);
  const transitions: Array<[string, string, boolean]> = states.flatMap((from) =>
    states.filter((to) => to !== from).map((to): [string, string, boolean] => [from, to, sabakanPermits[from]!.includes(to)]),
  );
  for (const [from, to, ok] of transitions) {
    it(`${from} -> ${to} is ${ok ? "permitted" : "INVALID_STATE_TRANSITION"}`, async () => {
      await withFake(async (fake, _clock, client) => {
        fake.addMachine({ serial: "m", rack: 1, state: from as "HEALTHY" });
        if (ok) {
          assert.equal((await client.request<{ setMachineState: Status }>(SET_STATE, { serial: "m", state: to })).setMachineState.state, to);
        } else {
          const err = await clientError(client.request(SET_STATE, { serial: "m", state: to }));
          assert.equal(err.response.status, 200);
          assert.deepEqual(err.response.errors?.[0]?.extensions, { serial: "m", type: "INVALID_STATE_TRANSITION" });
          // SetStateErrorFormat: "transition from [ %s ] to [ %s ] is forbidden", with sabakan's lower-case state names.
          assert.equal(err.response.errors?.[0]?.message, `transition from [ ${from.toLowerCase()} ] to [ ${to.toLowerCase()} ] is forbidden`);
          assert.equal(fake.machine("m")?.state, from);
        }
      });
    });
  }

  it("answers MACHINE_NOT_FOUND for an unknown serial; setState on the test side skips the check", async () => {
    await withFake(async (fake, _clock, client) => {
      const err = await clientError(client.request(SET_STATE, { serial: "ghost", state: "HEALTHY" }));
      assert.equal(err.response.errors?.[0]?.extensions?.["type"], "MACHINE_NOT_FOUND");
      fake.addMachine({ serial: "m", rack: 1, state: "RETIRED" });
      assert.equal(fake.setState("m", "HEALTHY", T0 - 5000).state, "HEALTHY");
      assert.equal((await client.request<{ machine: { status: Status } }>(MACHINE, { serial: "m" })).machine.status.duration, 5);
    });
  });
});

describe("test sabakan: HTTP like sabakan's gqlgen handler", () => {
  it("answers 422 for a field that is not in sabakan's schema", async () => {
    await withFake(async (fake, _clock, client) => {
      const res = await post(fake, { query: `{ searchMachines { spec { serial maxDaysBeforeRetire } } }` });
      assert.equal(res.status, 422);
      const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }>; data: null };
      assert.match(body.errors[0]?.message ?? "", /Cannot query field "maxDaysBeforeRetire" on type "MachineSpec"/);
      assert.equal(body.errors[0]?.extensions.code, "GRAPHQL_VALIDATION_FAILED");
      assert.equal(body.data, null);
      const err = await clientError(client.request(`{ searchMachines { status { since } } }`));
      assert.equal(err.response.status, 422);
    });
  });

  it("answers 422 for variables that are not sabakan's MachineParams, and for a syntax error", async () => {
    await withFake(async (fake) => {
      for (const having of [{ maxDaysBeforeRetire: 3 }, { states: ["unhealthy"] }, { racks: ["1"] }]) {
        const res = await post(fake, { query: SEARCH, variables: { having } });
        assert.equal(res.status, 422, JSON.stringify(having));
      }
      const res = await post(fake, { query: `{ searchMachines { ` });
      assert.equal(res.status, 422);
      assert.equal(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions.code, "GRAPHQL_PARSE_FAILED");
    });
  });

  it("requires Content-Type application/json on POST, refuses a body that is not JSON, 404s other paths", async () => {
    await withFake(async (fake) => {
      assert.equal((await post(fake, { query: SEARCH }, "application/json; charset=utf-8")).status, 200);
      const plain = await post(fake, { query: SEARCH }, "text/plain");
      assert.equal(plain.status, 400);
      assert.deepEqual(await plain.json(), { errors: [{ message: "transport not supported" }], data: null });
      assert.equal((await post(fake, "{ not json")).status, 400);
      assert.equal((await post(fake, { query: SEARCH, variables: [1] })).status, 400);
      assert.equal((await fetch(`${fake.url}/api/v1/machines`)).status, 404);
    });
  });

  it("answers GET queries and refuses GET mutations with 406", async () => {
    await withFake(async (fake) => {
      fake.addMachine({ serial: "m", rack: 1 });
      const q = new URLSearchParams({ query: MACHINE, variables: JSON.stringify({ serial: "m" }) });
      const res = await fetch(`${fake.url}/graphql?${q}`);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { data: { machine: { spec: { serial: string } } } }).data.machine.spec.serial, "m");
      assert.deepEqual(fake.requests[0]?.variables, { serial: "m" });
      const m = new URLSearchParams({ query: SET_STATE, variables: JSON.stringify({ serial: "m", state: "UNHEALTHY" }) });
      assert.equal((await fetch(`${fake.url}/graphql?${m}`)).status, 406);
      assert.equal(fake.machine("m")?.state, "HEALTHY");
    });
  });

  it("records each request with the variables as sent", async () => {
    await withFake(async (fake, _clock, client) => {
      const variables = {
        having: { states: ["UNHEALTHY", "UNREACHABLE"], labels: [{ name: "zone", value: "a" }], minDaysBeforeRetire: 0 },
        notHaving: { roles: ["boot"], racks: [] },
      };
      await client.request(SEARCH, variables);
      await client.request(SEARCH, { having: null, notHaving: null });
      const [first, second] = fake.requests;
      assert.equal(first?.method, "POST");
      assert.equal(first?.path, "/graphql");
      assert.equal(first?.contentType, "application/json");
      assert.deepEqual(first?.variables, variables);
      assert.equal(first?.operationName, "SearchMachines");
      assert.match(first?.query ?? "", /searchMachines\(having: \$having, notHaving: \$notHaving\)/);
      assert.deepEqual((first?.body as { variables: unknown }).variables, variables);
      assert.deepEqual(second?.variables, { having: null, notHaving: null });
    });
  });
});

describe("test sabakan: scriptable faults", () => {
  it("failWithStatus answers the next N requests, then sabakan answers again", async () => {
    await withFake(async (fake, _clock, client) => {
      fake.failWithStatus(500, undefined, 2);
      fake.failWithStatus(422, "plain words");
      assert.equal((await clientError(client.request(SEARCH))).response.status, 500);
      assert.equal((await clientError(client.request(SEARCH))).response.status, 500);
      const res = await post(fake, { query: SEARCH });
      assert.deepEqual([res.status, res.headers.get("content-type"), await res.text()], [422, "text/plain; charset=utf-8", "plain words"]);
      assert.deepEqual(await client.request(SEARCH), { searchMachines: [] });
      assert.equal(fake.requests.length, 4);
    });
  });

  it("failWithErrors answers HTTP 200 with errors and no data", async () => {
    await withFake(async (fake, _clock, client) => {
      fake.failWithErrors(["etcd is down", { message: "second", extensions: { type: "INTERNAL_SERVER_ERROR" } }]);
      const err = await clientError(client.request(SEARCH));
      assert.equal(err.response.status, 200);
      assert.deepEqual(err.response.errors, [{ message: "etcd is down" }, { message: "second", extensions: { type: "INTERNAL_SERVER_ERROR" } }]);
      assert.equal(err.response.data, null);
    });
  });

  it("respondWith answers a raw body, e.g. malformed JSON", async () => {
    await withFake(async (fake, _clock, client) => {
      fake.respondWith('{"data": {"searchMachines": [', 200);
      await assert.rejects(client.request(SEARCH), SyntaxError);
      fake.respondWith("<html>bad gateway</html>", 502, "text/html");
      const res = await post(fake, { query: SEARCH });
      assert.deepEqual([res.status, res.headers.get("content-type"), await res.text()], [502, "text/html", "<html>bad gateway</html>"]);
    });
  });

  it("respondWithLargeBody streams valid JSON of exactly that many bytes, chunked", async () => {
    await withFake(async (fake) => {
      const bytes = 3 * 1024 * 1024 + 17;
      fake.respondWithLargeBody(bytes);
      const res = await post(fake, { query: SEARCH });
      assert.equal(res.headers.get("content-length"), null);
      const buf = Buffer.from(await res.arrayBuffer());
      assert.equal(buf.length, bytes);
      assert.deepEqual((JSON.parse(buf.toString("utf8")) as { data: unknown }).data, { searchMachines: [] });
      assert.throws(() => fake.respondWithLargeBody(10), /at least/);
    });
  });

  it("setLatency delays the next answers, so a client with a deadline gives up", async () => {
    await withFake(async (fake) => {
      const search = (timeoutMs: number) =>
        fetch(`${fake.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: SEARCH }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      // Latencies far apart from the deadlines, so a busy machine cannot blur which side of them an answer falls.
      fake.setLatency(60_000);
      await assert.rejects(search(200), { name: "TimeoutError" });
      fake.setLatency(60_000, 2);
      await assert.rejects(search(200), { name: "TimeoutError" });
      await assert.rejects(search(200), { name: "TimeoutError" }, "the second of two delayed answers");
      assert.equal((await search(30_000)).status, 200, "the answer after the delayed ones comes without the delay");
    });
  });

  it("a fault for Infinity requests lasts until clearFaults", async () => {
    await withFake(async (fake, _clock, client) => {
      fake.failWithStatus(503, undefined, Infinity);
      fake.setLatency(1, Infinity);
      for (let i = 0; i < 3; i++) assert.equal((await clientError(client.request(SEARCH))).response.status, 503);
      fake.clearFaults();
      assert.deepEqual(await client.request(SEARCH), { searchMachines: [] });
    });
  });
});
