// An invoice as a document over HTTP (real PostgreSQL and Temporal, responses validated against the
// documents): the download as PDF (the default) or CSV chosen by `format` or the Accept header, and the
// resend by e-mail (through a local SMTP catcher, the PDF attached) or SMS (through the SMS outbox),
// PUSH and chat channels refused (I129), customers without a verified address (I130).
import { Event } from '../db/entities/Event.js';
import { readSmsOutbox } from '../platform/sms.js';
import { startCustomerSession, type CustomerSession } from './support/customers.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { issueTestInvoice, rawCall, testCustomer } from './support/invoices.js';

let session: CustomerSession;
let operator: string;
let anna: number;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);

/** Each request answers this status and catalogue code. */
async function expectErrors(cases: [string, string, number, string, unknown?][], token?: string) {
  for (const [method, path, status, code, body] of cases)
    expectError(await call(method, path, { token, body }), status, code);
}

beforeAll(async () => {
  session = await startCustomerSession();
  operator = session.operatorToken;
  anna = session.seed.customerIds[0]!;
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('documents', () => {
  let invoiceId: number;
  beforeAll(async () => {
    invoiceId = await issueTestInvoice(session, {
      customerId: anna,
      lines: [
        { gross: '12.60', description: 'Trip Yılmaz → Ostbahnhof' },
        { gross: '1.00', description: '=HYPERLINK("x")' },
      ],
    });
  });

  test('download: PDF by default, CSV by format or Accept; format wins', async () => {
    const pdf = await rawCall(session, back(`/invoices/${invoiceId}/download`), { token: operator });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toMatch(
      /^attachment; filename="invoice-BER-\d{4}-\d{6}\.pdf"$/,
    );
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.bytes.subarray(-6).toString('latin1')).toContain('%%EOF');

    const csv = await rawCall(session, back(`/invoices/${invoiceId}/download?format=CSV`), {
      token: operator,
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = csv.bytes.toString('utf8').trim().split('\r\n');
    expect(rows[0]).toBe(
      'invoiceNumber,invoiceId,issuedAt,state,currency,position,code,description,quantity,unit,unitPrice,taxPercentage,net,tax,gross',
    );
    expect(rows).toHaveLength(4);
    expect(rows[1]).toContain('Trip Yılmaz → Ostbahnhof');
    // A text cell is never taken for a formula.
    expect(rows[2]).toContain(`"'=HYPERLINK(""x"")"`);
    expect(rows[3]).toMatch(/,TOTAL,Test invoice,,,,,11\.43,2\.17,13\.60$/);

    const byAccept = await rawCall(session, back(`/invoices/${invoiceId}/download`), {
      token: operator,
      headers: { accept: 'application/pdf;q=0.5, text/csv;q=0.9' },
    });
    expect(byAccept.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const formatWins = await rawCall(session, back(`/invoices/${invoiceId}/download?format=PDF`), {
      token: operator,
      headers: { accept: 'text/csv' },
    });
    expect(formatWins.headers.get('content-type')).toBe('application/pdf');
    const anything = await rawCall(session, back(`/invoices/${invoiceId}/download`), {
      token: operator,
      headers: { accept: 'image/png, */*;q=0.1' },
    });
    expect(anything.headers.get('content-type')).toBe('application/pdf');
    const head = await rawCall(session, back(`/invoices/${invoiceId}/download?format=CSV`), {
      token: operator,
      method: 'HEAD',
    });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);

    const unknown = await rawCall(session, back('/invoices/2147483647/download'), {
      token: operator,
      headers: { accept: 'application/pdf' },
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.bytes.toString('utf8'))).toMatchObject({ errorCode: 'I404' });
    expectError(
      await call('GET', back(`/invoices/${invoiceId}/download?format=XLSX`), { token: operator }),
      400,
      '0022',
    );
  });

  test('resend by e-mail: the message with the PDF attached, INVOICE_RESENT', async () => {
    const reply = await call('POST', back(`/invoices/${invoiceId}/resend`), {
      token: operator,
      body: { mailMessage: 'Here is your invoice again.' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      invoiceId,
      channel: 'EMAIL',
      recipient: 'anna.schmidt@example.com',
      attachment: expect.stringMatching(/^invoice-BER-\d{4}-\d{6}\.pdf$/),
    });
    const message = session.mail.messages
      .filter((item) => item.to.includes('anna.schmidt@example.com'))
      .at(-1)!;
    expect(message.raw).toContain('Here is your invoice again.');
    expect(message.raw).toMatch(/Content-Type: application\/pdf; name=invoice-BER-\d{4}-\d{6}\.pdf/);
    expect(message.raw).toContain('Content-Disposition: attachment');
    const event = await session
      .em()
      .findOneOrFail(Event, { type: 'INVOICE_RESENT', customerId: anna }, { orderBy: { id: 'desc' } });
    expect(event.payload).toMatchObject({ invoiceId, channel: 'EMAIL' });
  });

  test('resend by SMS through the SMS port; PUSH and chat refused (I129); no verified address (I130)', async () => {
    const phone = `+4917${String(Date.now()).slice(-9)}`;
    const withPhone = await testCustomer(session, { phone, emailVerified: false });
    const invoice = await issueTestInvoice(session, { customerId: withPhone, lines: [{ gross: '8.00' }] });
    const sms = await call('POST', back(`/invoices/${invoice}/resend`), {
      token: operator,
      body: { mailMessage: 'Please pay.', channel: 'SMS' },
    });
    expect(sms.status).toBe(200);
    expect(sms.body).toMatchObject({ channel: 'SMS', recipient: phone, attachment: null });
    const [sent] = await readSmsOutbox(session.smsDir, phone);
    expect(sent!.text).toMatch(/^Please pay\. Invoice BER-\d{4}-\d{6}: 8\.00 EUR\.$/);
    const withoutPhone = await testCustomer(session, { emailVerified: false });
    const other = await issueTestInvoice(session, { customerId: withoutPhone, lines: [{ gross: '8.00' }] });
    await expectErrors(
      [
        ['POST', back(`/invoices/${invoice}/resend`), 422, 'I130', { mailMessage: 'x' }],
        ['POST', back(`/invoices/${other}/resend`), 422, 'I130', { mailMessage: 'x', channel: 'SMS' }],
        ['POST', back(`/invoices/${invoice}/resend`), 422, 'I129', { mailMessage: 'x', channel: 'PUSH' }],
        ['POST', back(`/invoices/${invoice}/resend`), 422, 'I129', { mailMessage: 'x', channel: 'WHATSAPP' }],
        ['POST', back(`/invoices/${invoice}/resend`), 400, '0022', { mailMessage: 'x', channel: 'PIGEON' }],
        ['POST', back(`/invoices/${invoice}/resend`), 400, '0022', { channel: 'EMAIL' }],
        ['POST', back(`/invoices/${invoice}/resend`), 400, '0022', { mailMessage: '' }],
      ],
      operator,
    );
  });
});
