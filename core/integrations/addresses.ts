import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Networks a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE=on (decision 025): this machine,
 * private and shared networks, link-local (cloud metadata services live there), and addresses that
 * are not anyone's (documentation, benchmarking, multicast, reserved).
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  refused.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  // The old IPv4-compatible form (::127.0.0.1), long deprecated.
  ["::", 96],
  // IPv4 written as IPv6 (mapped, translated, 6to4): read for the IPv4 inside them below, and
  // refused whole where they cannot be read.
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 32],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  refused.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:10.0.0.1` or `::ffff:a00:1`). */
function mappedIpv4(address: string): string | undefined {
  const match = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!match?.[1]) return undefined;
  const rest = match[1];
  if (isIP(rest) === 4) return rest;
  const words = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!words?.[1] || !words[2]) return undefined;
  const high = parseInt(words[1], 16);
  const low = parseInt(words[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Whether an IP address (v4 or v6) is one a webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, "ipv4");
  if (family !== 6) return true;
  const inner = mappedIpv4(address);
  if (inner) return refused.check(inner, "ipv4");
  return refused.check(address, "ipv6");
}

export class RefusedAddress extends Error {
  override readonly name = "RefusedAddress";
}

/** A URL's host as a bare address or name (`[::1]` → `::1`). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/** Every address a name resolves to, or the address itself. */
export async function resolveAll(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });
}

/**
 * A `lookup` for http(s).request that resolves the name and refuses the connection when any
 * address it gives is private: the check and the connection use the same answer, so a name that
 * resolves to a public address once and to a private one the next time (DNS rebinding) gets
 * nowhere.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error) {
      callback(error, "", 4);
      return;
    }
    const list = addresses;
    const bad = list.find((entry) => isPrivateAddress(entry.address));
    if (bad || list.length === 0) {
      callback(new RefusedAddress(`${hostname} resolves to a private address`), "", 4);
      return;
    }
    if (options.all) {
      (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
      return;
    }
    const [first] = list;
    callback(null, first?.address ?? "", first?.family ?? 4);
  });
};
