import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be delivered. Only public unicast addresses are reachable:
 * loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade
 * NAT, multicast, documentation and other reserved ranges are refused, also when
 * they hide inside an IPv6 address that embeds an IPv4 one (IPv4-mapped `::ffff:0:0/96`,
 * IPv4-compatible `::/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`, Teredo `2001::/32`): those are reachable only when every embedded
 * IPv4 address is public. `WEBHOOK_ALLOWED_TARGETS` names hosts or CIDRs that are
 * reachable anyway. Targets must use https; a service may let allow-listed ones use http.
 */
/** The setting that opens non-public targets, named in every refusal it could lift (a local receiver is the common case). */
const ALLOW_SETTING = 'WEBHOOK_ALLOWED_TARGETS';
const ALLOW_HINT = `list the host or its address in the setting ${ALLOW_SETTING} to allow it (e.g. 127.0.0.1 for a local receiver).`;

export class TargetPolicy {
  private readonly hosts = new Set<string>();
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];

  constructor(
    allowList: string,
    private readonly allowHttpForAllowedTargets = false,
  ) {
    for (const entry of allowList
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean)) {
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
    // The URL parser repairs `https:///x` and `https:x` into `https://x/`: the host must be written out.
    if (!/^https?:\/\/[^/\\?#]/i.test(raw)) return 'The url must be an absolute https URL with a host.';
    try {
      url = new URL(raw);
    } catch {
      return 'The url must be an absolute https URL with a host.';
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The url must be an absolute https URL with a host.';
    if (url.username || url.password) return 'The url must not contain credentials.';
    const host = hostOf(url);
    const allowedHost = this.hosts.has(host);
    if (!this.allowsScheme(url)) {
      return this.allowHttpForAllowedTargets ? `The url must use https (http only for a host listed in ${ALLOW_SETTING}).` : 'The url must use https.';
    }
    if (allowedHost) return null;
    // `localhost` and its subdomains always mean this machine (RFC 6761), however DNS answers, and
    // so does the same name with the root's trailing dot (`localhost.`), which a resolver may not know.
    const name = host.replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return `The url names ${host}, this machine, not a public address; ${ALLOW_HINT}`;
    let addresses: string[];
    try {
      addresses = isIP(name) ? [name] : (await resolveAll(name)).map((a) => a.address);
    } catch {
      // Unresolvable now (e.g. DNS not yet set up): accepted, and checked again at every delivery.
      return null;
    }
    const blocked = addresses.find((a) => !this.isReachable(host, a));
    return blocked ? `The url resolves to ${blocked}, which is not a public address; ${ALLOW_HINT}` : null;
  }

  /** https always; http only to allow-listed hosts, and only where the service allows it. */
  allowsScheme(url: URL): boolean {
    if (url.protocol === 'https:') return true;
    const host = hostOf(url);
    return url.protocol === 'http:' && this.allowHttpForAllowedTargets && (this.hosts.has(host) || this.isAllowedAddress(host));
  }

  /** Whether a connection to `address` (resolved from `host`) is allowed. */
  isReachable(host: string, address: string): boolean {
    if (this.hosts.has(host) || this.isAllowedAddress(address)) return true;
    return isPublicAddress(address);
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

/** Whether an address is public unicast, also looking inside IPv6 forms that embed IPv4 addresses. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.every((v4) => v4.range() === 'unicast');
  return v6.range() === 'unicast';
}

/** The IPv4 addresses inside an IPv6 address of a form that carries them, or null for other addresses. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = v6.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  // ::/96 (IPv4-compatible, beyond :: and ::1) and ::ffff:0:0:0/96 (IPv4-translated)
  if (zeros(0, 6) || (zeros(0, 4) && p[4] === 0xffff && p[5] === 0)) return [v4(p[6], p[7])];
  // 64:ff9b::/96 (NAT64 well-known prefix); 64:ff9b:1::/48 (local-use NAT64) has no fixed place for it: nothing public.
  if (p[0] === 0x64 && p[1] === 0xff9b) return zeros(2, 6) ? [v4(p[6], p[7])] : [new ipaddr.IPv4([0, 0, 0, 0])];
  // 2002::/16 (6to4): the IPv4 address follows the prefix
  if (p[0] === 0x2002) return [v4(p[1], p[2])];
  // 2001::/32 (Teredo): the server's IPv4 address, and the client's (inverted) in the last 32 bits
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2], p[3]), v4(~p[6] & 0xffff, ~p[7] & 0xffff)];
  return null;
}

export class BlockedTargetError extends Error {
  override readonly name = 'BlockedTargetError';
  readonly code = 'EBLOCKEDTARGET';

  constructor(host: string, address?: string, reason = 'not a public address') {
    super(`Refused to connect to ${host}${address ? ` (${address})` : ''}: ${reason}.`);
  }
}

/** The URL's host name as sockets see it (IPv6 literals without brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}
