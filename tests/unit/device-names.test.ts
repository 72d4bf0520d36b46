import { describe, expect, it } from "vitest";
import { deviceOf } from "../../core/auth/device-names.js";

// The sessions list names each device by its browser and system, read from the user agent the
// browser sent when it signed in (issue 50): real agents, as those browsers send them.

const AGENTS: [string, string | undefined, string][] = [
  [
    "Chrome on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Chrome on Windows",
  ],
  [
    "Safari on macOS",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15",
    "Safari on macOS",
  ],
  [
    "Safari on an iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
    "Safari on iPhone",
  ],
  [
    "Safari on an iPad",
    "Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
    "Safari on iPad",
  ],
  [
    "Chrome on an iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
    "Chrome on iPhone",
  ],
  [
    "Chrome on Android (the reduced agent Chrome sends)",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    "Chrome on Android",
  ],
  [
    "Samsung Internet",
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
    "Samsung Internet on Android",
  ],
  [
    "Firefox on Linux",
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "Firefox on Linux",
  ],
  [
    "Firefox on Ubuntu",
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "Firefox on Linux",
  ],
  [
    "Edge on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    "Edge on Windows",
  ],
  [
    "Chrome on Linux",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Chrome on Linux",
  ],
  [
    "headless Chrome (read as Chrome, not as Linux alone)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
    "Chrome on Linux",
  ],
  [
    "Chrome on a Chromebook",
    "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Chrome on ChromeOS",
  ],
  ["curl", "curl/8.5.0", "curl"],
  ["another program", "python-requests/2.32.3", "python-requests"],
  ["Mozilla/5.0 and nothing else", "Mozilla/5.0", "Unknown device"],
  ["an agent that names nothing", "node", "Unknown device"],
  ["an empty agent", "", "Unknown device"],
  ["spaces alone", "   ", "Unknown device"],
  ["no agent at all", undefined, "Unknown device"],
];

describe("deviceOf", () => {
  it.each(AGENTS)("names %s", (_case, agent, name) => {
    expect(deviceOf(agent)).toBe(name);
  });

  it("reads no more of an agent than a browser's could be", () => {
    const started = performance.now();
    expect(deviceOf(`Mozilla/5.0 (${"x; ".repeat(100_000)})`)).toBe("Unknown device");
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
