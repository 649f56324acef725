import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type express from 'express';
import { DomainError } from '../domain/errors.js';

/**
 * The answer to a request Node's HTTP parser rejects before express sees it (headers too large,
 * malformed request line): a catalogue body instead of Node's empty 400/431, then the connection closes.
 */
function rejectMalformedRequest(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const domainError = new DomainError(
    error.code === 'HPE_HEADER_OVERFLOW' ? '0025' : '0026',
    error.code === 'HPE_HEADER_OVERFLOW' ? 'request header fields too large' : 'malformed HTTP request',
  );
  const body = JSON.stringify(domainError.toBody(randomBytes(16).toString('hex')));
  const reason = domainError.httpStatus === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${domainError.httpStatus} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Serves the app on a port (0 picks a free one); resolves once listening. */
export async function listen(app: express.Express, port: number, host?: string): Promise<Server> {
  const server = createServer(app);
  server.on('clientError', rejectMalformedRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
