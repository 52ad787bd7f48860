/** Splitting a byte stream at random points, for the property tests of stream parsers. */

/** `bytes` cut at the given offsets (taken modulo its length, deduplicated), in order; no piece is lost. */
export function cut(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const at of points) {
    pieces.push(bytes.slice(from, at));
    from = at;
  }
  pieces.push(bytes.slice(from));
  return pieces;
}
