import { Writable } from "node:stream";

const LEVELS: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};

/** Fields every pino line has, and the ones a request line says in its own words. */
const SHOWN = new Set([
  "level",
  "time",
  "pid",
  "hostname",
  "msg",
  "reqId",
  "req",
  "res",
  "responseTime",
]);

interface Line {
  level?: number;
  time?: number;
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { type?: string; message?: string; stack?: string };
  [field: string]: unknown;
}

const clock = (time: number | undefined) => new Date(time ?? Date.now()).toTimeString().slice(0, 8);

/**
 * One log line (pino's JSON) as a person reads it in a terminal: a request as
 * `12:00:01 GET /posts 200 4 ms`, anything else as `12:00:01 warn message {fields}`, an error with
 * its stack. Text that is not JSON passes through as it is.
 */
export function formatLogLine(text: string): string {
  let line: Line;
  try {
    line = JSON.parse(text) as Line;
  } catch {
    return text;
  }
  const level = LEVELS[line.level ?? 30] ?? "info";
  const time = clock(line.time);
  if (line.req?.method && line.res?.statusCode !== undefined && level === "info") {
    const ms = line.responseTime === undefined ? "" : ` ${line.responseTime.toFixed(0)} ms`;
    return `${time} ${line.req.method} ${line.req.url ?? ""} ${String(line.res.statusCode)}${ms}`;
  }
  const extra = Object.fromEntries(
    Object.entries(line).filter(([key]) => !SHOWN.has(key) && key !== "err"),
  );
  if (line.req?.method) extra.request = `${line.req.method} ${line.req.url ?? ""}`;
  const fields = Object.keys(extra).length > 0 ? ` ${JSON.stringify(extra)}` : "";
  const stack = line.err
    ? `\n${line.err.stack ?? `${line.err.type ?? "Error"}: ${line.err.message ?? ""}`}`
    : "";
  return `${time} ${level === "info" ? "" : `${level.toUpperCase()} `}${line.msg ?? ""}${fields}${stack}`;
}

/** A stream for the logger that writes each line to `out` formatted for people. */
export function prettyLogStream(out: NodeJS.WritableStream): Writable {
  let rest = "";
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") out.write(`${formatLogLine(line)}\n`);
      done();
    },
  });
}
