import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be delivered. Only public unicast addresses are reachable:
 * loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade
 * NAT, multicast, documentation and other reserved ranges are refused, also when
 * they hide inside an IPv4-mapped IPv6 address. `WEBHOOK_ALLOWED_TARGETS` names
 * hosts or CIDRs that are reachable anyway; only those may use plain http.
 */
export class TargetPolicy {
  private readonly hosts = new Set<string>();
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];

  constructor(allowList: string) {
    for (const entry of allowList.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)) {
      if (entry.includes('/')) this.ranges.push(ipaddr.parseCIDR(entry));
      else if (ipaddr.isValid(entry)) this.ranges.push(ipaddr.parseCIDR(`${entry}/${isIP(entry) === 4 ? 32 : 128}`));
      else this.hosts.add(entry);
    }
  }

  /** Whether the allow-list entry syntax is valid; for config validation. */
  static isValidAllowList(value: string): boolean {
    try {
      new TargetPolicy(value);
      return true;
    } catch {
      return false;
    }
  }

  /** The reason a URL may not be registered, or null. Resolves the host name. */
  async refusal(raw: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'The url must be an absolute http or https URL.';
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The url must be an absolute http or https URL.';
    if (url.username || url.password) return 'The url must not contain credentials.';
    const host = hostOf(url);
    const allowedHost = this.hosts.has(host);
    if (url.protocol === 'http:' && !allowedHost && !this.isAllowedAddress(host)) return 'The url must use https.';
    if (allowedHost) return null;
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await resolveAll(host)).map((a) => a.address);
    } catch {
      // Unresolvable now (e.g. DNS not yet set up): accepted, and checked again at every delivery.
      return null;
    }
    const blocked = addresses.find((a) => !this.isReachable(host, a));
    return blocked ? `The url resolves to ${blocked}, which is not a public address.` : null;
  }

  /** Whether a connection to `address` (resolved from `host`) is allowed. */
  isReachable(host: string, address: string): boolean {
    if (this.hosts.has(host) || this.isAllowedAddress(address)) return true;
    if (!ipaddr.isValid(address)) return false;
    return ipaddr.process(address).range() === 'unicast';
  }

  /**
   * A `lookup` for sockets that refuses non-public addresses after DNS resolution, so a
   * name that re-resolves to a private address (DNS rebinding) is caught at connect time.
   * (IP literals never reach a lookup: check them with `isReachable` first.)
   */
  readonly lookup = (hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const host = hostname.toLowerCase();
      const allowed = addresses.filter((a) => this.isReachable(host, a.address));
      if (allowed.length === 0) return callback(new BlockedTargetError(hostname, addresses[0]?.address), []);
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };

  private isAllowedAddress(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address);
    return this.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  }
}

export class BlockedTargetError extends Error {
  override readonly name = 'BlockedTargetError';
  readonly code = 'EBLOCKEDTARGET';

  constructor(host: string, address?: string) {
    super(`Refused to connect to ${host}${address ? ` (${address})` : ''}: not a public address.`);
  }
}

/** The URL's host name as sockets see it (IPv6 literals without brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}
