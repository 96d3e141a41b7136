import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../support/run-cli.js";

describe("kintsugi sabakan set-url (ckecli's habit)", () => {
  it("says where sabakan's URL lives instead of 'unknown command', with exit 1 and no server asked", async () => {
    // The server given cannot answer: the command must not need it.
    const result = await runCli(["--server", "http://127.0.0.1:9", "sabakan", "set-url", "http://10.0.0.1:10080"]);
    assert.deepEqual(result, {
      code: 1,
      stdout: "",
      stderr:
        "kintsugi: sabakan set-url: kintsugi reads sabakan's URL from its config file, not from its store as CKE does: set sabakan.url there (kintsugi check-config FILE checks it) and restart kintsugi serve\n",
    });
  });
});
