/**
 * CliIo: where a command writes (stdout for results, stderr for progress and notes) and the
 * environment it reads; tests pass their own to capture output without spawning a process.
 */
export interface CliIo {
  out(text: string): void;
  err(line: string): void;
  /** A progress line (stderr). */
  progress(line: string): void;
  env: NodeJS.ProcessEnv;
  /** Colour by default (stdout is a TTY and NO_COLOR is unset). */
  color: boolean;
}

export function processIo(): CliIo {
  return {
    out: (t) => void process.stdout.write(t),
    err: (l) => void process.stderr.write(l + '\n'),
    progress: (l) => void process.stderr.write(l + '\n'),
    env: process.env,
    color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
  };
}
