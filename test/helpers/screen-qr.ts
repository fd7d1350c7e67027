import { createRequire } from 'node:module';

// jsqr is CommonJS whose types declare an ES default export: required, typed as that export.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;

/**
 * Reads back a QR code from a terminal's screen as the terminal shows it: `capture-pane -e` text
 * (characters and the SGR colours of each cell) rendered into a bitmap, then decoded by jsQR. A
 * terminal with a dark background is assumed (default background black, default foreground white):
 * a code whose colour codes never reached the terminal then shows inverted, with literal escape text
 * in its rows, and does not read back. Only dark-on-light codes are read (`dontInvert`), as many
 * phone scanners do.
 */
export function decodeQrOnScreen(captured: string): string | undefined {
  const BLACK = 0;
  const WHITE = 255;
  type Cell = [top: number, bottom: number];
  const rows: Cell[][] = [];
  // tmux writes a colour change once, when it happens: the colours carry over from line to line.
  let fg = WHITE;
  let bg = BLACK;
  for (const line of captured.split('\n')) {
    const cells: Cell[] = [];
    const re = /\x1b\[([0-9;]*)m|([^\x1b])/gu;
    for (let m = re.exec(line); m; m = re.exec(line)) {
      if (m[1] !== undefined) {
        const p = m[1] === '' ? [0] : m[1].split(';').map(Number);
        for (let i = 0; i < p.length; i++) {
          const n = p[i]!;
          if (n === 0) [fg, bg] = [WHITE, BLACK];
          else if (n === 39) fg = WHITE;
          else if (n === 49) bg = BLACK;
          else if (n >= 30 && n <= 37) fg = n === 30 ? BLACK : WHITE;
          else if (n >= 40 && n <= 47) bg = n === 40 ? BLACK : WHITE;
          else if (n >= 90 && n <= 97) fg = WHITE;
          else if (n >= 100 && n <= 107) bg = WHITE;
          else if ((n === 38 || n === 48) && p[i + 1] === 5) {
            const v = p[i + 2] === 0 || p[i + 2] === 16 ? BLACK : WHITE;
            if (n === 38) fg = v;
            else bg = v;
            i += 2;
          }
        }
        continue;
      }
      const ch = m[2]!;
      cells.push(
        ch === '▀'
          ? [fg, bg]
          : ch === '▄'
            ? [bg, fg]
            : ch === '█'
              ? [fg, fg]
              : ch === ' '
                ? [bg, bg]
                : [fg, bg].includes(WHITE) && bg === BLACK
                  ? [BLACK, BLACK]
                  : [bg, bg],
      );
    }
    rows.push(cells);
  }
  // Each cell is one module wide and two high (half blocks): 4 × 4 pixels a module.
  const SCALE = 4;
  const margin = 8;
  const cols = Math.max(...rows.map((r) => r.length));
  const width = cols * SCALE + 2 * margin * SCALE;
  const height = rows.length * 2 * SCALE + 2 * margin * SCALE;
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const cx = Math.floor(x / SCALE) - margin;
      const py = Math.floor(y / SCALE) - margin * 2;
      const cell = rows[Math.floor(py / 2)]?.[cx];
      const v = cell && py >= 0 && cx >= 0 ? cell[py % 2]! : BLACK;
      const o = (y * width + x) * 4;
      rgba[o] = rgba[o + 1] = rgba[o + 2] = v;
      rgba[o + 3] = 255;
    }
  }
  return jsQR(rgba, width, height, { inversionAttempts: 'dontInvert' })?.data;
}
