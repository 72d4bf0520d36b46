const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * "Sun Nov 22 2026", in UTC: the server and the browser must print the same text, whatever the
 * reader's time zone, or hydration would disagree.
 */
export function shortDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return `${DAYS[date.getUTCDay()] ?? ""} ${MONTHS[date.getUTCMonth()] ?? ""} ${String(date.getUTCDate()).padStart(2, "0")} ${String(date.getUTCFullYear())}`;
}

/**
 * "Sun Nov 22 2026, 14:05 UTC": a day and its time of day, in UTC for the same reason as
 * `shortDate` (the zone is named, so nobody reads it as their own).
 */
export function dateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const time = `${String(date.getUTCHours()).padStart(2, "0")}:${String(date.getUTCMinutes()).padStart(2, "0")}`;
  return `${shortDate(iso)}, ${time} UTC`;
}

/** The stored widths of an uploaded image, from the URL the API gives for its largest copy. */
export function imageSources(url: string) {
  if (!url.endsWith("/lg.webp")) return { src: url, srcSet: undefined };
  const base = url.slice(0, -"lg.webp".length);
  return {
    src: url,
    srcSet: `${base}sm.webp 400w, ${base}md.webp 800w, ${base}lg.webp 1200w`,
  };
}

/** "Nov 22" from a UTC day ("2026-11-22"): a chart's date labels, short enough for a phone. */
export function monthDay(day: string): string {
  const [, month = "", date = ""] = day.split("-");
  return `${MONTHS[Number(month) - 1] ?? ""} ${String(Number(date))}`;
}

// Made once, as the header's date format: "1,234" on the server and in every browser alike.
const countFormat = new Intl.NumberFormat("en-US");

/** A count with thousands separators ("1,234"), the same text wherever it is rendered. */
export const formatCount = (count: number) => countFormat.format(count);
