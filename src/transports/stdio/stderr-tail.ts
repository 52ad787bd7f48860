/**
 * The last lines a child wrote to stderr, so an error about its exit can say why it died.
 * Bounded (lines and characters) whatever the child writes; appending is amortized O(chunk).
 */
export class StderrTail {
  readonly #maxLines: number;
  readonly #maxChars: number;
  #text = '';

  constructor(maxLines = 20, maxChars = 4096) {
    this.#maxLines = maxLines;
    this.#maxChars = maxChars;
  }

  append(text: string): void {
    this.#text += text;
    // Trim only once the text has doubled, so a chatty child costs O(1) amortized per character.
    if (this.#text.length > 2 * this.#maxChars) this.#text = this.#text.slice(-this.#maxChars);
  }

  /** The kept tail: at most `maxLines` lines and `maxChars` characters, trailing whitespace removed. */
  toString(): string {
    const lines = this.#text.slice(-this.#maxChars).trimEnd().split(/\r?\n/);
    return lines.slice(-this.#maxLines).join('\n');
  }
}
