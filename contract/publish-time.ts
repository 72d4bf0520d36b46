/**
 * Times of scheduled posts (decision 011). The API takes and gives ISO 8601 times with a zone
 * (`Z` or an offset); the site's form sends a wall-clock time and the writer's IANA time zone,
 * turned into an instant here, and shows a time back in the zone of whoever reads it.
 */

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/i;

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** A wall-clock reading as milliseconds, as if it were UTC; undefined for a day or hour that is not. */
function wallClockMs(parts: (string | undefined)[]) {
  const [year, month, day, hour, minute, second] = parts.map((part) => Number(part ?? 0));
  if (
    year === undefined ||
    month === undefined ||
    day === undefined ||
    hour === undefined ||
    minute === undefined ||
    second === undefined
  ) {
    return undefined;
  }
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** An ISO 8601 date and time with its zone (`2026-11-23T19:30:00Z`, `...+01:00`), or undefined. */
export function parseIsoTime(text: string): Date | undefined {
  const match = ISO_TIME.exec(text.trim());
  if (!match) return undefined;
  const wall = wallClockMs(match.slice(1, 7));
  if (wall === undefined) return undefined;
  const fraction = Number(`0.${match[7] ?? "0"}`) * 1000;
  const [sign, offsetHours, offsetMinutes] = [match[9], Number(match[10]), Number(match[11])];
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offsetMs = match[8]
    ? 0
    : (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(wall + Math.floor(fraction) - offsetMs);
}

/** Whether the runtime knows `zone` as an IANA time zone. */
export function isTimeZone(zone: string) {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone !== "";
  } catch {
    return false;
  }
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `zone` at `instant`, in milliseconds as if it were UTC. */
function wallClockIn(zone: string, instant: number) {
  let format = clockFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    clockFormats.set(zone, format);
  }
  const parts = Object.fromEntries(
    format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]),
  );
  return Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
}

/**
 * The instant a `datetime-local` value (`2026-11-23T19:30`) names in `zone` (UTC when the zone is
 * unknown), as an ISO time; undefined when the value is not a time. A time skipped by a change to
 * summer time is read with the offset from before it, as browsers do.
 */
export function zonedTimeToIso(local: string, zone: string): string | undefined {
  const match = LOCAL_TIME.exec(local.trim());
  if (!match) return undefined;
  const wall = wallClockMs(match.slice(1, 7));
  if (wall === undefined) return undefined;
  if (!isTimeZone(zone)) return new Date(wall).toISOString();
  const offsetAt = (instant: number) =>
    wallClockIn(zone, instant) - Math.floor(instant / 1000) * 1000;
  const guess = wall - offsetAt(wall);
  return new Date(wall - offsetAt(guess)).toISOString();
}

/**
 * The `datetime-local` value showing `iso` on the wall clock of `zone` (UTC when unknown), to the
 * minute, or to the second when it has any.
 */
export function isoToZonedTime(iso: string, zone: string): string {
  const instant = Date.parse(iso);
  const wall = isTimeZone(zone) ? wallClockIn(zone, instant) : instant;
  const text = new Date(wall).toISOString();
  return text.slice(17, 19) === "00" ? text.slice(0, 16) : text.slice(0, 19);
}
