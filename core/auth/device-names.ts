import { BROWSER_MAP, parse } from "bowser";

// The name a session goes by in the sessions list ("Firefox on Linux"), read from the user agent
// at sign-in with bowser (MIT, maintained; decision 024). Only the name is stored.

export const UNKNOWN_DEVICE = "Unknown device";

/** Longer than any browser's user agent: bowser's patterns are not run on more. */
const USER_AGENT_MAX = 512;

/** The names bowser knows; anything else is its guess at an unknown agent's first word. */
const KNOWN_BROWSERS = new Set(Object.values(BROWSER_MAP));

/** Bowser's names, as people say them. */
const SPOKEN: Record<string, string> = {
  "Microsoft Edge": "Edge",
  "Samsung Internet for Android": "Samsung Internet",
  "Chrome OS": "ChromeOS",
};

const spoken = (name: string | undefined) => (name ? (SPOKEN[name] ?? name) : undefined);

/**
 * "Chrome on Android", "Safari on iPhone", "Edge on Windows"; a program by its name ("curl");
 * "Unknown device" when the agent names nothing (or there is none).
 */
export function deviceOf(userAgent: string | undefined): string {
  const agent = userAgent?.trim().slice(0, USER_AGENT_MAX);
  if (!agent) return UNKNOWN_DEVICE;
  const { browser, os, platform } = parse(agent);
  const browserName = spoken(
    browser.name && KNOWN_BROWSERS.has(browser.name) ? browser.name : undefined,
  );
  // An iPhone or an iPad says which it is, which reads better than "iOS".
  const system = os.name === "iOS" && platform.model ? platform.model : spoken(os.name);
  if (browserName && system) return `${browserName} on ${system}`;
  if (browserName ?? system) return browserName ?? system ?? UNKNOWN_DEVICE;
  // "curl/8.5.0", "python-requests/2.32": the program's name. "Mozilla/5.0" alone names nothing.
  const program = /^([A-Za-z][\w.-]{0,30})\//.exec(agent)?.[1];
  return program && program !== "Mozilla" ? program : UNKNOWN_DEVICE;
}
