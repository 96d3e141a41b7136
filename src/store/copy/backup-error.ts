/**
 * A backup, restore or check that cannot go on, said so that the operator can act: a missing file, a file that would
 * be overwritten, a database in use, a backup that fails its check. Whatever was there is left as it was.
 */
export class BackupError extends Error {
  override readonly name = "BackupError";
}
