import { describe, expect, it } from "vitest";
import { isoToZonedTime, parseIsoTime, zonedTimeToIso } from "../../contract/publish-time.js";

describe("parseIsoTime", () => {
  it("reads ISO times with a zone, to the millisecond", () => {
    expect(parseIsoTime("2030-01-02T03:04:05Z")?.toISOString()).toBe("2030-01-02T03:04:05.000Z");
    expect(parseIsoTime("2030-01-02T03:04+01:30")?.toISOString()).toBe("2030-01-02T01:34:00.000Z");
    expect(parseIsoTime("2030-01-02T03:04:05.123456-0500")?.toISOString()).toBe(
      "2030-01-02T08:04:05.123Z",
    );
  });

  it("refuses what is no time or has no zone", () => {
    for (const text of [
      "",
      "tomorrow",
      "2030-01-02",
      "2030-01-02T03:04:05",
      "2030-02-29T00:00Z",
      "2030-04-31T00:00Z",
      "2030-01-02T24:00Z",
      "2030-01-02T03:60Z",
      "2030-01-02T03:04+25:00",
      "1e10",
    ]) {
      expect(parseIsoTime(text), text).toBeUndefined();
    }
    expect(parseIsoTime("2028-02-29T00:00Z")).toBeDefined();
  });
});

describe("zonedTimeToIso and isoToZonedTime", () => {
  it("reads a wall-clock time in the writer's zone, summer and winter", () => {
    expect(zonedTimeToIso("2030-01-15T09:30", "Europe/Paris")).toBe("2030-01-15T08:30:00.000Z");
    expect(zonedTimeToIso("2030-07-15T09:30", "Europe/Paris")).toBe("2030-07-15T07:30:00.000Z");
    expect(zonedTimeToIso("2030-07-15T09:30", "America/New_York")).toBe("2030-07-15T13:30:00.000Z");
    expect(zonedTimeToIso("2030-07-15T09:30", "Asia/Kolkata")).toBe("2030-07-15T04:00:00.000Z");
  });

  it("reads an unknown or missing zone as UTC, and refuses what is no time", () => {
    expect(zonedTimeToIso("2030-07-15T09:30", "Mars/Olympus")).toBe("2030-07-15T09:30:00.000Z");
    expect(zonedTimeToIso("2030-07-15T09:30", "")).toBe("2030-07-15T09:30:00.000Z");
    expect(zonedTimeToIso("15/07/2030 09:30", "UTC")).toBeUndefined();
    expect(zonedTimeToIso("2030-02-30T09:30", "UTC")).toBeUndefined();
  });

  it("shows a stored time back on the same wall clock", () => {
    for (const zone of ["Europe/Paris", "America/New_York", "Australia/Sydney", "UTC"]) {
      for (const local of ["2030-01-15T09:30", "2030-07-15T23:45"]) {
        const iso = zonedTimeToIso(local, zone) ?? "";
        expect(isoToZonedTime(iso, zone), `${zone} ${local}`).toBe(local);
      }
    }
  });
});
