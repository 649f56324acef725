// The public GBFS feeds (docs/feeds.md), outside every interface document: anonymous and CORS-open as the
// GBFS specification expects, GET/HEAD only, answered from the process's snapshots as stored bytes with
// their ETag (304 for a matching If-None-Match). Paths:
//   /v1/{tenant}/gbfs/manifest.json                       the tenant's published systems (GBFS 3.0)
//   /v1/{tenant}/gbfs/{systemId}/v3/{file}.json           GBFS 3.0
//   /v1/{tenant}/gbfs/{systemId}/v2/{file}.json           GBFS 2.3
// Whatever else lies below /v1/{tenant}/gbfs (an unknown tenant, system or file, an unpublished system,
// malformed or hostile segments) answers FD410, all alike; other methods FD405.
import type { RequestHandler, Response } from 'express';
import { DomainError } from '../../domain/errors.js';
import { gbfsFiles, type GbfsVersionPath } from '../../domain/gbfs-vocabulary.js';
import type { PublicHandlerFactory } from '../app.js';
import { loadConfig } from '../../platform/config.js';
import {
  gbfsFreshnessFromEnv,
  GbfsSnapshots,
  registerSnapshots,
  type StoredFeedFile,
} from './gbfs-snapshots.js';

const feedPrefix = /^\/v1\/[^/]+\/gbfs(\/|$)/;
const manifestPath = /^\/v1\/([A-Za-z0-9][A-Za-z0-9_.-]{0,31})\/gbfs\/manifest\.json$/;
const filePath =
  /^\/v1\/([A-Za-z0-9][A-Za-z0-9_.-]{0,31})\/gbfs\/([a-z0-9][a-z0-9-]{0,62})\/(v3|v2)\/([a-z_]{1,40})\.json$/;

/** Headers every answer below /v1/{tenant}/gbfs carries, errors included. */
function openHeaders(res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'ETag, Last-Modified, Cache-Control');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/** Whether an If-None-Match header names this entity tag (weak comparison, `*` included). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Whether the request accepts gzip (`Accept-Encoding`; a zero q-value refuses it). */
const acceptsGzip = (header: string | undefined) =>
  !!header && /(^|,)\s*(gzip|\*)\s*(;\s*q=(1(\.0*)?|0?\.\d*[1-9]\d*))?\s*(,|$)/i.test(header);

function send(req: Parameters<RequestHandler>[0], res: Response, file: StoredFeedFile): void {
  const remaining = Math.max(
    0,
    Math.ceil((file.lastUpdated.getTime() + file.ttl * 1000 - Date.now()) / 1000),
  );
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  res.setHeader('ETag', gzip ? file.gzipEtag : file.etag);
  res.setHeader('Last-Modified', file.lastUpdated.toUTCString());
  res.setHeader('Cache-Control', `public, max-age=${remaining}`);
  res.setHeader('Vary', 'Accept-Encoding');
  // Either representation's tag validates: both carry the same bytes once decoded.
  const ifNoneMatch = req.headers['if-none-match'];
  if (matches(ifNoneMatch, file.etag) || matches(ifNoneMatch, file.gzipEtag)) {
    res.status(304).end();
    return;
  }
  const body = gzip ? file.gzip : file.body;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', body.length);
  res.status(200).end(body);
}

/** The GBFS handler over a snapshot store. */
export function gbfsHandler(snapshots: GbfsSnapshots): RequestHandler {
  return (req, res, next) => {
    if (!feedPrefix.test(req.path)) return next();
    openHeaders(res);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'If-None-Match, If-Modified-Since');
      res.setHeader('Access-Control-Max-Age', '86400');
      res.status(204).end();
      return;
    }
    // HEAD arrives as GET (api/app.ts), answered without a body by Node.
    if (req.method !== 'GET') return next(new DomainError('FD405', `${req.method} is not allowed on a feed`));
    const notFound = () => next(new DomainError('FD410', 'no such public feed'));
    // The raw path: no decoding, so an encoded or doubled separator never matches.
    const path = req.originalUrl.split('?')[0] ?? '';
    const manifest = manifestPath.exec(path);
    const file = manifest ? null : filePath.exec(path);
    if (!manifest && !file) return notFound();
    const lookup = manifest
      ? snapshots.manifest(manifest[1]!)
      : (() => {
          const [, tenant, systemId, version, name] = file!;
          if (!(gbfsFiles[version as GbfsVersionPath] as readonly string[]).includes(name!))
            return Promise.resolve(undefined);
          return snapshots.file(tenant!, systemId!, version as GbfsVersionPath, name!);
        })();
    lookup.then((stored) => (stored ? send(req, res, stored) : notFound()), next);
  };
}

/** The feeds domain's public handler: one snapshot store per app, its URLs under PUBLIC_BASE_URL. */
export const gbfsPublicHandler: PublicHandlerFactory = (deps) =>
  gbfsHandler(
    registerSnapshots(
      new GbfsSnapshots(deps.orm, loadConfig().publicBaseUrl, gbfsFreshnessFromEnv(), (error, tenant) =>
        deps.logger?.warn({ err: error, tenant }, 'GBFS snapshot refresh failed; serving the last snapshot'),
      ),
    ),
  );
