/**
 * Random identifiers from the platform's CSPRNG, as flat strings. Ids that live as long as a
 * session should not be cons-string chains: `crypto.randomUUID()` (Node) and hex built by appending
 * byte after byte both leave 13-15 cons-string nodes behind the id (about 450 bytes), kept for as
 * long as the id is. Joining an array builds the string once.
 */

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => HEX[byte]!).join('');
}

/** `bytes` random bytes as lower-case hex (visible ASCII). */
export function randomHex(bytes: number): string {
  return hexOf(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A random (version 4) UUID, like `crypto.randomUUID()`. */
export function randomUuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = hexOf(b);
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}
