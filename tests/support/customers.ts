// The set-up and helpers of the customer suites (tests/customers-*.test.ts): a session whose API sends
// mail to a local catcher and SMS to a throwaway outbox, so the suites read the codes customers receive,
// and unique addresses and numbers for the customers they sign up.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { OneTimeCode } from '../../db/entities/OneTimeCode.js';
import { SignInThrottle } from '../../db/entities/SignInThrottle.js';
import { startMailCatcher } from '../../platform/mail.js';
import { readSmsOutbox } from '../../platform/sms.js';
import type { Reply } from './http.js';
import { startSession, type Session } from './session.js';

export type MailCatcher = Awaited<ReturnType<typeof startMailCatcher>>;

export interface CustomerSession extends Session {
  /** Every message the API sent. */
  mail: MailCatcher;
  /** Where the API writes its SMS. */
  smsDir: string;
  /** `/v1/{seeded tenant}/auth{path}` */
  auth(path: string): string;
  /** The code in the newest message to an address (waits briefly for delivery). */
  mailedCode(to: string): Promise<string>;
  /** The code in the newest SMS to a number. */
  smsCode(to: string): Promise<string>;
  /** Lets every block and cooldown of this tenant end, as if their time had passed. */
  letTimePass(): Promise<void>;
  /** Password sign-in as the app does it. */
  signIn(email: string, password: string): Promise<Reply>;
}

export const uniqueEmail = (name: string) => `${name}.${randomBytes(3).toString('hex')}@example.org`;
export const uniquePhone = () => `+4917${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;

/** Starts the mail catcher and the SMS outbox, then a session (with a rival tenant) that uses them. */
export async function startCustomerSession(): Promise<CustomerSession> {
  const mail = await startMailCatcher({ port: 0 });
  const smsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-sms-'));
  process.env.SMTP_URL = mail.url;
  process.env.SMS_OUTBOX_DIR = smsDir;
  async function release(): Promise<void> {
    await mail.stop();
    await fs.rm(smsDir, { recursive: true, force: true });
    delete process.env.SMTP_URL;
    delete process.env.SMS_OUTBOX_DIR;
  }
  let session: Session;
  try {
    session = await startSession({ rival: true });
  } catch (error) {
    await release();
    throw error;
  }
  const stopStack = session.stop;
  const auth = (path: string) => `/v1/${session.seed.tenant}/auth${path}`;
  return Object.assign(session, {
    mail,
    smsDir,
    auth,
    async mailedCode(to: string): Promise<string> {
      for (let attempt = 0; attempt < 50; attempt++) {
        const message = mail.messages.filter((item) => item.to.includes(to)).at(-1);
        const code = message?.raw.match(/^ {4}(\d{6})\s*$/m)?.[1];
        if (code) return code;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no code mailed to ${to}`);
    },
    async smsCode(to: string): Promise<string> {
      const message = (await readSmsOutbox(smsDir, to)).at(-1);
      const code = message?.text.match(/(\d{6})/)?.[1];
      if (!code) throw new Error(`no SMS to ${to}`);
      return code;
    },
    async letTimePass(): Promise<void> {
      const past = new Date(Date.now() - 1000);
      await session.em().nativeUpdate(SignInThrottle, {}, { blockedUntil: past });
      await session.em().nativeUpdate(OneTimeCode, {}, { createdAt: new Date(Date.now() - 3_600_000) });
    },
    signIn: (email: string, password: string): Promise<Reply> =>
      session.stack.call('POST', auth('/customer/sign-in'), { body: { email, password } }),
    async stop(): Promise<void> {
      await stopStack();
      await release();
    },
  });
}
