/**
 * Text from outside (callback fields, headers, bodies, stored events) shown in human output must not
 * drive the terminal: an ESC or OSC sequence in a buyer's name could retitle the window, clear the
 * screen or hide a verdict. `escapeControl` makes every control character visible instead.
 *
 * Escaped: C0 controls (U+0000–U+001F, so ESC and therefore every CSI/OSC sequence loses its
 * introducer), DEL (U+007F), C1 controls (U+0080–U+009F, including the 8-bit CSI U+009B and OSC
 * U+009D), the line and paragraph separators (U+2028, U+2029) and the bidirectional overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069) that reorder what is displayed. `\n` and `\t` are kept
 * only with `{ multiline: true }`. Machine output (`--json`) is never escaped by this.
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

export interface EscapeOptions {
  /** Keep line feeds and tabs (for bodies and multi-line blocks); escape every other control. */
  multiline?: boolean;
}

/** `text` with every control character replaced by a visible escape (`\e`, `\x07`, `\u009b`, …). */
export function escapeControl(text: string, options: EscapeOptions = {}): string {
  const re = options.multiline ? CONTROL_MULTILINE : CONTROL;
  re.lastIndex = 0;
  if (!re.test(text)) return text;
  re.lastIndex = 0;
  return text.replace(re, visible);
}
