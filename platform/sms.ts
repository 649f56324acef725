// Outgoing SMS through a provider port. The default adapter records each message as a JSON file in the
// SMS outbox directory (no provider is contracted by default); a real provider implements `SmsSender`.
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

export interface SmsMessage {
  /** E.164 phone number. */
  to: string;
  text: string;
}

/** Port for sending SMS (sign-in codes). */
export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}

/** Default adapter: one JSON file per message in `outboxDir`, readable by developers and tests. */
export class OutboxSmsSender implements SmsSender {
  constructor(private readonly outboxDir: string) {}

  async send(message: SmsMessage): Promise<void> {
    await fs.mkdir(this.outboxDir, { recursive: true });
    const file = path.join(
      this.outboxDir,
      `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.json`,
    );
    await fs.writeFile(file, JSON.stringify({ ...message, sentAt: new Date().toISOString() }));
  }
}

/** The messages in an outbox sent to one number, oldest first (developer tools and tests). */
export async function readSmsOutbox(
  outboxDir: string,
  to?: string,
): Promise<Array<SmsMessage & { sentAt: string }>> {
  const names = await fs.readdir(outboxDir).catch(() => [] as string[]);
  const messages = await Promise.all(
    names
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map(
        async (name) =>
          JSON.parse(await fs.readFile(path.join(outboxDir, name), 'utf8')) as SmsMessage & {
            sentAt: string;
          },
      ),
  );
  return to === undefined ? messages : messages.filter((message) => message.to === to);
}
