// Outgoing platform webhooks: the HMAC-SHA1 signature, the check of a target address (no private,
// loopback or link-local hosts unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set) and one signed HTTP POST with
// a time limit. The rules of what is signed and retried are domain/webhooks.ts's; docs/webhooks.md tells
// receivers how to verify.
import { createHmac, randomBytes } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { webhookSignedContent } from '../domain/webhooks.js';

/**
 * Whether webhooks may target private, loopback and link-local hosts: `WEBHOOK_ALLOW_PRIVATE_TARGETS=true`
 * (local development, the tests' receiver). Off by default, so a subscription cannot make the platform
 * call into its own network. Read at each use.
 */
export function privateWebhookTargetsAllowed(): boolean {
  return process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true';
}

/** A new signing secret: `whsec_` and 32 random bytes in base64url; the HMAC key is the whole string's UTF-8 bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The x-webhook-signature value: `sha1=` and the hex HMAC-SHA1 of the signed content, one per secret, space-separated. */
export function webhookSignature(
  secrets: readonly string[],
  webhookId: string,
  timestamp: number,
  body: string,
): string {
  const content = webhookSignedContent(webhookId, timestamp, body);
  return secrets
    .map((secret) => `sha1=${createHmac('sha1', secret).update(content, 'utf8').digest('hex')}`)
    .join(' ');
}

const blocked = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is private, loopback, link-local, reserved or multicast (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** Why a subscription URL is refused: `WH100` (not a usable http(s) URL), `WH101` (a private host), or null. */
export function webhookTargetRefusal(
  url: string,
  allowPrivate = privateWebhookTargetsAllowed(),
): { code: 'WH100' | 'WH101'; reason: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { code: 'WH100', reason: 'not an absolute URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { code: 'WH100', reason: 'only http and https URLs are allowed' };
  if (parsed.username || parsed.password) return { code: 'WH100', reason: 'the URL carries credentials' };
  if (url.includes('#')) return { code: 'WH100', reason: 'the URL carries a fragment' };
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!host) return { code: 'WH100', reason: 'the URL names no host' };
  if (allowPrivate) return null;
  const localName = host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local');
  if (localName || (!host.includes('.') && net.isIP(host) === 0))
    return { code: 'WH101', reason: `${host} is a local host name` };
  if (isPrivateAddress(host)) return { code: 'WH101', reason: `${host} is a private or reserved address` };
  return null;
}

/**
 * DNS lookup that refuses private addresses (unless allowed), so a public name resolving to an internal
 * address (DNS rebinding) is refused at connection time too.
 */
function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = !allowPrivate && list.some((entry) => isPrivateAddress(entry.address));
      if (refused || list.length === 0) {
        const failure = Object.assign(new Error(`${hostname} resolves to a private address`), {
          code: 'EWEBHOOKPRIVATE',
        });
        return callback(failure, '', 0);
      }
      if ((options as dns.LookupAllOptions).all)
        return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** What one POST came to: the receiver's status and the first bytes of its answer, or why none came. */
export interface WebhookPostResult {
  status: number | null;
  excerpt: string | null;
  error: string | null;
  durationMs: number;
  /** Whether no answer came within the time limit (as opposed to a refused target or broken connection). */
  timedOut: boolean;
}

/**
 * POSTs a JSON body with the given headers; resolves (never rejects) with the status, or with the error
 * when no answer came within `timeoutMs` (connection, headers and the first KiB of the body together).
 * Redirects are not followed.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate?: boolean },
): Promise<WebhookPostResult> {
  const started = performance.now();
  const allowPrivate = options.allowPrivate ?? privateWebhookTargetsAllowed();
  const finish = (
    status: number | null,
    excerpt: string | null,
    error: string | null,
    timedOut = false,
  ): WebhookPostResult => ({
    status,
    excerpt,
    error,
    durationMs: Math.round(performance.now() - started),
    timedOut,
  });
  const refusal = webhookTargetRefusal(url, allowPrivate);
  if (refusal) return Promise.resolve(finish(null, null, `target refused: ${refusal.reason}`));
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: WebhookPostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        agent: target.protocol === 'https:' ? agents.https : agents.http,
        lookup: guardedLookup(allowPrivate),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'fleetflow-webhooks/1',
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < 1024) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () =>
          settle(
            finish(response.statusCode ?? null, Buffer.concat(chunks).toString('utf8').slice(0, 1000), null),
          ),
        );
        response.on('error', (error) => settle(finish(response.statusCode ?? null, null, error.message)));
      },
    );
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (error) => settle(finish(null, null, error.message.slice(0, 1000), timedOut)));
    request.end(body);
  });
}
