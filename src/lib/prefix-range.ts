// Prefix scans as key ranges, for stores that compare keys as UTF-8 bytes.
/**
 * The smallest string greater than every string that starts with prefix. SQLite compares text as
 * UTF-8 bytes, whose order is code-point order, so the successor of the last code point bounds the
 * range exactly (a plain "\uffff" suffix would miss keys with characters beyond U+FFFF).
 */
export function prefixUpperBound(prefix: string): string {
  const points = [...prefix];
  while (points.length > 0) {
    const last = (points.pop() as string).codePointAt(0) as number;
    let next = last + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next);
  }
  return '\u{10ffff}\u{10ffff}\u{10ffff}\u{10ffff}'; // empty prefix: above any real key
}
