/**
 * The example server's data: a few notes, a 16×16 PNG and a generated WAV beep. Kept apart from
 * `server.ts` so the interop fixtures (official SDK servers) can serve exactly the same content.
 */

export interface Note {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly text: string;
}

export const NOTES: readonly Note[] = [
  {
    id: 'groceries',
    title: 'Groceries',
    tags: ['home'],
    text: 'Milk, eggs, coffee beans, and something green.',
  },
  {
    id: 'ideas',
    title: 'Ideas',
    tags: ['work', 'someday'],
    text: 'A switchboard for AI tools: one plug per server, every protocol era on the same panel.',
  },
  {
    id: 'meeting',
    title: 'Meeting notes',
    tags: ['work'],
    text: 'Ship the stdio transport first. HTTP next week. Nobody wants more meetings.',
  },
];

export const findNote = (id: string): Note | undefined => NOTES.find((note) => note.id === id);

export const README = `# Switchboard example server

Tools, resources, templates and prompts that exercise every feature of the server framework.
Try \`echo\`, \`add\`, \`word_count\`, \`logo\`, \`beep\`, \`find_notes\` and \`read_note\`.
`;

/** A real 16×16 PNG (a dark panel with a 4×4 grid of amber jacks), base64-encoded. */
export const LOGO_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAKElEQVR42mOQ07QmCTHIaVp/Xab8dZkyhE+QTZYGkp006odRP1DDDwA8kNEBVCnxQwAAAABJRU5ErkJggg==';

/** The logo as an icon: data URIs are valid icon sources, and need no network. */
export const LOGO_ICON = {
  src: `data:image/png;base64,${LOGO_PNG_BASE64}`,
  mimeType: 'image/png',
  sizes: ['16x16'],
};

/**
 * A short sine beep as a WAV file (8 kHz, 8-bit mono PCM): the 44-byte RIFF header, then one byte
 * per sample. Built with web-standard APIs only, so it runs anywhere.
 */
export function beepWav(hz = 440, ms = 50, sampleRate = 8000): Uint8Array {
  const samples = Math.round((sampleRate * ms) / 1000);
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[offset + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + samples, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // size of the fmt chunk
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate, true); // bytes per second
  view.setUint16(32, 1, true); // bytes per sample frame
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, samples, true);
  for (let i = 0; i < samples; i++) {
    bytes[44 + i] = Math.round(128 + 100 * Math.sin((2 * Math.PI * hz * i) / sampleRate));
  }
  return bytes;
}

/** Words, characters and lines of a text: what the `word_count` tool reports. */
export function countWords(text: string): { words: number; characters: number; lines: number } {
  const words = text.split(/\s+/).filter((w) => w !== '').length;
  return { words, characters: text.length, lines: text === '' ? 0 : text.split('\n').length };
}
