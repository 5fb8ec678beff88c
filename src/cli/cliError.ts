/**
 * CliError: a failure the CLI reports as one line on stderr with a non-zero exit code
 * (wrong flags, unreachable endpoint, bad file, server refusal). Anything else is a bug.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
