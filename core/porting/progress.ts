/** Told how a long run goes: a bar on a terminal, nothing otherwise. */
export interface Progress {
  /** A new stage; `total` when it is known. */
  start(label: string, total?: number): void;
  tick(count?: number): void;
  done(): void;
}

/**
 * A one-line bar redrawn in place on a terminal (at most ten times a second). On anything else
 * (a pipe, a log file, a test) it draws nothing: the report at the end says what happened.
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  let label = "";
  let total: number | undefined;
  let count = 0;
  let drawnAt = 0;
  const draw = (force: boolean) => {
    const now = Date.now();
    if (!force && now - drawnAt < 100) return;
    drawnAt = now;
    const width = 30;
    const line =
      total === undefined || total === 0
        ? `${label}: ${String(count)}`
        : `${label} [${"#".repeat(Math.round((count / total) * width)).padEnd(width, ".")}] ${String(count)}/${String(total)}`;
    stream.write(`\r\x1b[2K${line}`);
  };
  if (!stream.isTTY)
    return { start: () => undefined, tick: () => undefined, done: () => undefined };
  return {
    start(name, size) {
      label = name;
      total = size;
      count = 0;
      draw(true);
    },
    tick(step = 1) {
      count += step;
      draw(false);
    },
    done() {
      draw(true);
      stream.write("\n");
    },
  };
}
