// An invoice as a document: PDF (pdfkit) for people — what a customer receives and what a resend
// attaches — and CSV (csv-stringify) for bookkeeping, one row per line item and a TOTAL row. Both are
// rendered from the API's representation, so a document always shows what the API answers: amounts in
// the currency's minor digits and totals that are the sums of the lines.
import PDFDocument from 'pdfkit';
import { stringify } from 'csv-stringify/sync';
import type { InvoiceDto } from './invoice-representation.js';

/** Who issues the invoice and to whom, as the documents print them. */
export interface InvoiceParties {
  issuer: { name: string; code: string; contact: string[] };
  customer: { name: string; email: string; address: string[] };
}

/** The formats an invoice downloads in. */
export const invoiceDocumentFormats = ['PDF', 'CSV'] as const;
export type InvoiceDocumentFormat = (typeof invoiceDocumentFormats)[number];

export const invoiceMediaTypes: Readonly<Record<InvoiceDocumentFormat, string>> = {
  PDF: 'application/pdf',
  CSV: 'text/csv',
};

/** `invoice-BER-2026-000042.pdf` */
export function invoiceFileName(invoice: InvoiceDto, format: InvoiceDocumentFormat): string {
  return `invoice-${invoice.number}.${format.toLowerCase()}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

// The PDF's standard font (Helvetica) covers Windows-1252: Latin-1 plus these.
const cp1252Extras = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const transliterated: Readonly<Record<string, string>> = {
  ı: 'i',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ħ: 'h',
  ŋ: 'n',
};

/**
 * Text the PDF's standard font can draw: characters outside Windows-1252 lose their accents (`ş` → `s`)
 * or are transliterated (`ı` → `i`), and the rest become `?`; control characters become spaces.
 */
export function pdfText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += ' ';
    else if (code <= 0xff || cp1252Extras.has(char)) out += char;
    else if (transliterated[char]) out += transliterated[char];
    else {
      const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += [...base].every((c) => c.codePointAt(0)! <= 0xff) && base.length > 0 ? base : '?';
    }
  }
  return out;
}

const dateOf = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

/** The invoice as a PDF (A4, one table of its lines, its totals and its payments). */
export function invoicePdf(invoice: InvoiceDto, parties: InvoiceParties): Promise<Uint8Array> {
  const issued = new Date(invoice.issuedAt);
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: {
      Title: pdfText(`Invoice ${invoice.number}`),
      Author: pdfText(parties.issuer.name),
      Subject: pdfText(invoice.title),
      CreationDate: issued,
      ModDate: issued,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
  });
  const left = 50;
  const width = doc.page.width - 100;
  const text = (value: string) => pdfText(value);

  doc.font('Helvetica-Bold').fontSize(16).text(text(parties.issuer.name), left, 50);
  doc.font('Helvetica').fontSize(9);
  for (const line of parties.issuer.contact) doc.text(text(line));
  doc.moveDown();
  doc
    .font('Helvetica-Bold')
    .fontSize(14)
    .text(text(invoice.refundedInvoiceId ? 'Refund invoice' : 'Invoice'));
  doc.font('Helvetica').fontSize(10);
  doc.text(text(`Number: ${invoice.number}`));
  doc.text(`Issued: ${dateOf(invoice.issuedAt)}`);
  if (invoice.billedAt) doc.text(`Billed: ${dateOf(invoice.billedAt)}`);
  doc.text(`State: ${invoice.state}`);
  doc.text(`Type: ${invoice.type}`);
  if (invoice.refundReason) doc.text(text(`Reason: ${invoice.refundReason}`));
  doc.moveDown();
  doc.font('Helvetica-Bold').text('Billed to');
  doc.font('Helvetica');
  doc.text(text(parties.customer.name));
  for (const line of parties.customer.address) doc.text(text(line));
  doc.text(text(parties.customer.email));
  doc.moveDown();
  doc.font('Helvetica-Bold').fontSize(12).text(text(invoice.title));
  doc.font('Helvetica').fontSize(10);
  if (invoice.description) doc.text(text(invoice.description));
  doc.moveDown();

  const columns = [
    { title: '#', width: 25, align: 'left' as const },
    { title: 'Description', width: 185, align: 'left' as const },
    { title: 'Quantity', width: 55, align: 'right' as const },
    { title: 'Unit price', width: 60, align: 'right' as const },
    { title: 'Tax %', width: 40, align: 'right' as const },
    { title: 'Net', width: 65, align: 'right' as const },
    { title: 'Gross', width: 65, align: 'right' as const },
  ];
  const row = (cells: string[], bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    const heights = cells.map((cell, index) =>
      doc.heightOfString(text(cell), { width: columns[index]!.width - 4 }),
    );
    const height = Math.max(...heights, 12);
    if (doc.y + height > doc.page.height - 70) doc.addPage();
    const top = doc.y;
    let x = left;
    cells.forEach((cell, index) => {
      const column = columns[index]!;
      doc.text(text(cell), x, top, { width: column.width - 4, align: column.align });
      x += column.width;
    });
    doc.x = left;
    doc.y = top + height + 3;
  };
  row(
    columns.map((column) => column.title),
    true,
  );
  doc
    .moveTo(left, doc.y)
    .lineTo(left + width, doc.y)
    .stroke();
  doc.y += 3;
  for (const line of invoice.lines)
    row([
      String(line.position),
      line.description,
      `${line.quantity} ${line.unit}`,
      line.unitPrice,
      line.taxPercentage,
      line.net,
      line.gross,
    ]);
  doc
    .moveTo(left, doc.y)
    .lineTo(left + width, doc.y)
    .stroke();
  doc.y += 6;
  doc.font('Helvetica').fontSize(10);
  for (const [label, value] of [
    ['Net', invoice.totals.net],
    ['Tax', invoice.totals.tax],
    ['Total', invoice.totals.gross],
  ] as const)
    doc.text(`${label}: ${value} ${invoice.currency}`, left, doc.y, { width, align: 'right' });
  if (invoice.payments.length) {
    doc.moveDown();
    doc.font('Helvetica-Bold').text('Payments', left);
    doc.font('Helvetica');
    for (const payment of invoice.payments)
      doc.text(
        `${dateOf(payment.createdAt)}  ${payment.amount} ${payment.currency}  ${payment.state}` +
          (payment.paidAt ? `  paid ${dateOf(payment.paidAt)}` : ''),
      );
  }
  doc.end();
  return done;
}

/** A spreadsheet cannot take a text cell for a formula: such cells are prefixed with `'`. */
const cell = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/**
 * The invoice as CSV (RFC 4180, UTF-8, a header row): one row per line item, then a TOTAL row whose
 * amounts are the invoice's totals (the sums of the lines).
 */
export function invoiceCsv(invoice: InvoiceDto): Uint8Array {
  const header = [
    'invoiceNumber',
    'invoiceId',
    'issuedAt',
    'state',
    'currency',
    'position',
    'code',
    'description',
    'quantity',
    'unit',
    'unitPrice',
    'taxPercentage',
    'net',
    'tax',
    'gross',
  ];
  const common = [invoice.number, String(invoice.id), invoice.issuedAt, invoice.state, invoice.currency];
  const rows = invoice.lines.map((line) => [
    ...common,
    String(line.position),
    cell(line.code),
    cell(line.description),
    line.quantity,
    line.unit,
    line.unitPrice,
    line.taxPercentage,
    line.net,
    line.tax,
    line.gross,
  ]);
  rows.push([
    ...common,
    '',
    'TOTAL',
    cell(invoice.title),
    '',
    '',
    '',
    '',
    invoice.totals.net,
    invoice.totals.tax,
    invoice.totals.gross,
  ]);
  return new TextEncoder().encode(stringify([header, ...rows], { record_delimiter: 'windows' }));
}
