import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OPERATOR_ERRORS } from "../../src/cli/main.js";
import { StartRefusedError } from "../../src/auth/access-policy.js";
import { ConfigError } from "../../src/config/load-config.js";
import { BackupError } from "../../src/store/copy/new-file.js";
import { CopyFailedError } from "../../src/store/copy/copy-store.js";
import { SnapshotSourceError, TargetNotEmptyError } from "../../src/store/copy/store-snapshot.js";
import { UnfinishedCopyError } from "../../src/store/copy/copy-marker.js";
import { StoreSchemaError } from "../../src/store/core/schema-version.js";
import { EtcdClientConfigError } from "../../src/config/etcd-tls.js";
import { DatabaseOpenError, StoreUnavailableError } from "../../src/store/store-errors.js";
import { ListenError } from "../../src/wiring/listen-address.js";
import { CliError } from "../../src/cli/cli-error.js";

// The CLI tells the operator's errors by name (the commands loaded on demand are bundled with their own copies of the
// classes): every class it means is named, by the name its instances carry.
describe("the operator's errors the CLI prints without a stack", () => {
  const classes = [
    CliError,
    ConfigError,
    DatabaseOpenError,
    EtcdClientConfigError,
    StartRefusedError,
    UnfinishedCopyError,
    StoreSchemaError,
    StoreUnavailableError,
    ListenError,
    BackupError,
    SnapshotSourceError,
    TargetNotEmptyError,
    CopyFailedError,
  ];
  it("names each class once, and nothing else", () => assert.deepEqual([...OPERATOR_ERRORS].sort(), classes.map((c) => c.name).sort()));
  for (const type of classes) {
    it(`${type.name}: its instances carry its name`, () => {
      // Each constructor's arguments: a message, or a list of problems.
      const instance = type === EtcdClientConfigError ? new EtcdClientConfigError([]) : new (type as unknown as new (...args: unknown[]) => Error)("x", []);
      assert.equal(instance.name, type.name);
    });
  }
});
