import { describe, expect, it } from "vitest";
import { servedAtAddress } from "../../core/auth/relying-party.js";

// Passkeys need a domain name as their relying party: a site served at an IP address cannot
// offer them (issue 50), and says at which address it is served.

describe("servedAtAddress", () => {
  it.each([
    ["http://127.0.0.1:3000", "127.0.0.1"],
    ["https://203.0.113.7", "203.0.113.7"],
    // The URL parser writes every IPv4 form as four numbers.
    ["http://127.1:3000", "127.0.0.1"],
    ["http://[::1]:3000", "::1"],
    ["https://[2001:db8::1]/blog", "2001:db8::1"],
  ])("finds the address in %s", (publicUrl, address) => {
    expect(servedAtAddress(publicUrl)).toBe(address);
  });

  it.each([
    "http://localhost:3000",
    "https://example.com",
    "https://blog.example.com/",
    "https://127.0.0.1.nip.io",
    "https://xn--bcher-kva.example",
  ])("finds none in %s", (publicUrl) => {
    expect(servedAtAddress(publicUrl)).toBeUndefined();
  });
});
