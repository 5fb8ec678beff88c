/**
 * The slice of a pino logger that auth uses, so tests can pass a silent or recording logger.
 */
export interface AuthLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: AuthLogger = { info() {}, warn() {}, error() {} };
