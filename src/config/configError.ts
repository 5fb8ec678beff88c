/**
 * A bad flag or environment value. The message is one line that names the flag (or the
 * variable when the value came from the environment), ready to print before exiting 1.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
