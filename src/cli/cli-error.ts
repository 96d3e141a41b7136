/** An error meant for the operator: printed as it is, without a stack. */
export class CliError extends Error {
  override readonly name = "CliError";
}
