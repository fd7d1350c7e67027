/**
 * A minimal PDF writer for the emulator's shipping labels: one A6 page of text lines in Helvetica
 * (PDF 1.4, ISO 32000-1 §7: header, four objects, a cross-reference table with the objects' byte
 * offsets, trailer). Text outside printable ASCII is written as `?` (the standard 14 fonts carry no
 * other glyphs without an encoding of their own).
 */
export interface PdfLine {
  text: string;
  /** Font size in points (10 by default). */
  size?: number;
}

/** A6 in points. */
const WIDTH = 298;
const HEIGHT = 420;
const MARGIN = 20;

/** A string literal's text: printable ASCII, with `\`, `(` and `)` escaped. */
export function pdfText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (c) => `\\${c}`);
}

/** The page's content stream: each line below the previous one. */
function content(lines: readonly PdfLine[]): string {
  let y = HEIGHT - MARGIN;
  const ops: string[] = ['BT'];
  for (const line of lines) {
    const size = line.size ?? 10;
    y -= size + 4;
    ops.push(`/F1 ${size} Tf`, `1 0 0 1 ${MARGIN} ${y} Tm`, `(${pdfText(line.text)}) Tj`);
  }
  ops.push('ET');
  return ops.join('\n');
}

/** A one-page PDF of the lines. */
export function pdfDocument(lines: readonly PdfLine[], title = ''): Buffer {
  const stream = content(lines);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${WIDTH} ${HEIGHT}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${pdfText(title)}) /Producer (paycli sandbox) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
