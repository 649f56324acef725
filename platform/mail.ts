// Outgoing e-mail: nodemailer over SMTP to SMTP_URL. Without SMTP_URL the message is written as an
// .eml file into the mail outbox directory, the same place the embedded SMTP server of `npm start`
// keeps what it receives, so a developer reads codes there either way.
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import { SMTPServer } from 'smtp-server';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Files sent with the message (an invoice's PDF). */
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

/** Port for sending e-mail (the customer domain's codes and links). */
export interface MailSender {
  send(message: MailMessage): Promise<void>;
}

/** Sends through nodemailer: SMTP when a URL is given, otherwise .eml files in `outboxDir`. */
export class NodemailerSender implements MailSender {
  private readonly transport: Transporter;

  constructor(private readonly options: { smtpUrl?: string; outboxDir: string; from: string }) {
    this.transport = options.smtpUrl
      ? nodemailer.createTransport(options.smtpUrl)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  async send(message: MailMessage): Promise<void> {
    const info = (await this.transport.sendMail({ from: this.options.from, ...message })) as {
      message?: Buffer;
    };
    if (!this.options.smtpUrl && info.message) await writeMailFile(this.options.outboxDir, info.message);
  }
}

async function writeMailFile(dir: string, raw: Buffer): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
  await fs.writeFile(file, raw);
  return file;
}

/** A received message as the local mail catcher keeps it. */
export interface CaughtMail {
  from: string;
  to: string[];
  raw: string;
  file?: string;
}

/**
 * The local mail catcher (smtp-server): accepts every message without authentication or TLS and keeps it
 * as an .eml file in `outboxDir` (when given) and in memory (`messages`). For `npm start` and tests only.
 */
export async function startMailCatcher(options: {
  port: number;
  host?: string;
  outboxDir?: string;
}): Promise<{ url: string; messages: CaughtMail[]; stop(): Promise<void> }> {
  const messages: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const store = options.outboxDir ? writeMailFile(options.outboxDir, raw) : Promise.resolve(undefined);
        store.then(
          (file) => {
            messages.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((recipient) => recipient.address),
              raw: raw.toString('utf8'),
              file,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `smtp://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    messages,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
